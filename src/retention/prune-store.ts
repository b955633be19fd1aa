import { ANSWERED_CALL_RECORD } from '../activities/answered-calls.js';
import { ANSWERED_TOOL_CALL_RECORD } from '../activities/answered-tool-calls.js';
import { JOB_STATUS_RECORD } from '../activities/job-status-record.js';
import { TOOL_JOURNAL_RECORD } from '../tools/store-tool-journal.js';
import { PAUSE_PRUNE_AFTER_JOB_STREAMS, pauseForTest } from '../tools/test-pause.js';
import { mapWithConcurrency } from '../store/concurrency.js';
import type { JobStore } from '../store/job-store.js';
import type { ObjectRef } from '../store/references.js';
import { JobStoreError } from '../store/store-errors.js';
import {
  OBJECT_TOUCH_INTERVAL_MS,
  type RecordKey,
  type StoreMaintenance,
} from '../store/store-maintenance.js';
import type { JobDirectory, RunningWorkflow } from './job-directory.js';
import { ReachableObjects } from './reachable-objects.js';
import { refuseSealed } from './sealed-values.js';

/**
 * Every record namespace the runner writes, each handled below (deleted with its job or its
 * run, and followed for references while kept). A new namespace must be added here.
 */
export const RECORD_NAMESPACES = [
  JOB_STATUS_RECORD,
  ANSWERED_CALL_RECORD,
  ANSWERED_TOOL_CALL_RECORD,
  TOOL_JOURNAL_RECORD,
] as const;

/**
 * Temporal keeps a closed workflow at least this long (the shortest retention a namespace can
 * have): a job unknown to it whose status is newer ran on another server or namespace.
 */
const MINIMUM_RETENTION_MS = 24 * 60 * 60 * 1000;

/** The shortest grace a pruner accepts: longer than a put may go without refreshing an object. */
export const MINIMUM_GRACE_MS = 2 * OBJECT_TOUCH_INTERVAL_MS;
export const DEFAULT_GRACE_MS = 60 * 60 * 1000;

export interface PruneOptions {
  /** The store as jobs use it (an encrypting store opens what it reads). */
  store: JobStore;
  directory: JobDirectory;
  /** Jobs that ended longer ago than this are deleted. */
  olderThanMs: number;
  /**
   * Objects put less than this long before now, or before the start of the oldest running
   * workflow, are kept whatever refers to them (default one hour; at least `MINIMUM_GRACE_MS`):
   * a running job holds some references only in its workflow state.
   */
  graceMs?: number;
  /** False (the default) changes nothing and reports what would go. */
  apply?: boolean;
  /**
   * Also delete jobs Temporal does not know whose stored status is not `done` (terminated jobs
   * past the namespace's retention), once their status is older than `olderThanMs`.
   */
  forgetUnfinished?: boolean;
  /** Now, in ms since the epoch (default `Date.now()`). */
  now?: number;
  onProgress?: (line: string) => void;
}

export interface PruneReport {
  applied: boolean;
  /** Jobs deleted (or that would be): their events, live events and records. */
  deletedJobs: string[];
  /** Jobs kept that the store holds data of (a running workflow it holds nothing of is none). */
  keptJobs: number;
  /** Jobs Temporal does not know whose status is not `done`: kept without `forgetUnfinished`. */
  unfinishedUnknownJobs: string[];
  /** Records of tool calls of runs that ended (used only while their run runs). */
  deletedToolCallRecords: number;
  /** Objects put before this (ms since the epoch) and reachable from no kept job were removed. */
  objectCutoffMs: number | undefined;
  /**
   * The running workflow whose first start set the cutoff (less the grace), when one did:
   * objects put since it started are kept until it ends or waits settled for a message.
   */
  cutoffHeldBy: string | undefined;
  /** Why no object was removed, when none could be. */
  objectsKeptBecause: string | undefined;
  removedObjects: { count: number; bytes: number };
  /** Objects kept as in use: reached from a kept job, or put since the cutoff (and theirs). */
  reachableObjects: number;
  /**
   * Running jobs that were waiting for a message or an approval with nothing under way, and
   * named the objects they hold: kept by those, they did not hold the cutoff back to their
   * first start.
   */
  settledJobs: number;
  /**
   * Temporary files that writers which died mid-write left in the embedded store, older than
   * the grace (removed, or that would be).
   */
  abandonedWrites: { count: number; bytes: number };
}

/**
 * Deletes what the job store holds for jobs that ended long ago, and the objects no remaining
 * job can reach. Safe to run while workers run jobs:
 * - a job is deleted only once Temporal says it closed before the threshold (or, for a job
 *   Temporal no longer knows, its stored status says it ended before it); a job Temporal does
 *   not know that stored its status within a day stops the pruner before it deletes anything
 *   (it is connected to the wrong namespace, whose running workflows it cannot see);
 * - an object goes only when no remaining event or record reaches it, and it was put (or put
 *   again, which refreshes it) before the cutoff: the grace before now, and before the start of
 *   every running workflow, whose state may hold references the store does not;
 * - records of a job are deleted after its streams, its status last: a pruner stopped half-way
 *   leaves the job listed, and the next one finishes it.
 */
export async function pruneStore(options: PruneOptions): Promise<PruneReport> {
  const { store, directory } = options;
  const maintenance = store.maintenance?.();
  if (maintenance === undefined) throw new JobStoreError('This job store cannot be pruned');
  const now = options.now ?? Date.now();
  // Put and write times are the store's: on PostgreSQL, the database server's clock.
  const storeNow = options.now ?? (await maintenance.currentTimeMs());
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  if (!(graceMs >= MINIMUM_GRACE_MS)) {
    throw new RangeError(`The grace must be at least ${MINIMUM_GRACE_MS} ms, not ${graceMs}`);
  }
  if (!(options.olderThanMs >= 0)) {
    throw new RangeError(`olderThanMs must be 0 or more, not ${options.olderThanMs}`);
  }
  const apply = options.apply ?? false;
  const progress = options.onProgress ?? (() => undefined);
  const threshold = now - options.olderThanMs;

  const running = await directory.running();
  const runningIds = new Set(running.map((workflow) => workflow.workflowId));
  const runningRuns = new Set(running.map((workflow) => workflow.runId));
  progress(`${running.length} workflows running`);

  const statusKeys = await collect(maintenance.listRecordKeys(JOB_STATUS_RECORD));
  const answerKeys = await collect(maintenance.listRecordKeys(ANSWERED_CALL_RECORD));
  const storedJobIds = new Set([...statusKeys, ...answerKeys].map((entry) => entry.key));
  // Running workflows too: a job that stored no record yet may have stored objects.
  const jobIds = new Set([...storedJobIds, ...runningIds]);
  // Encrypted records read without keys would hide their references: refuse before deleting.
  const firstStatus = statusKeys[0];
  if (firstStatus !== undefined) {
    refuseSealed(await store.getRecord(JOB_STATUS_RECORD, firstStatus.key));
  }
  const statusWrittenAt = new Map(statusKeys.map((entry) => [entry.key, entry.writtenAtMs]));

  const deletedJobs: string[] = [];
  const unfinishedUnknownJobs: string[] = [];
  const keptJobs: string[] = [];
  for (const jobId of jobIds) {
    const judged = deletedJobs.length + keptJobs.length;
    if (judged > 0 && judged % 1000 === 0) progress(`asked Temporal about ${judged} jobs`);
    const verdict = runningIds.has(jobId)
      ? 'keep'
      : await judgeJob(store, directory, jobId, statusWrittenAt.get(jobId), threshold, storeNow);
    if (verdict === 'delete' || (verdict === 'unfinished' && options.forgetUnfinished)) {
      deletedJobs.push(jobId);
    } else {
      keptJobs.push(jobId);
      if (verdict === 'unfinished') unfinishedUnknownJobs.push(jobId);
    }
  }
  progress(`${deletedJobs.length} of ${jobIds.size} jobs ended before the threshold`);

  const deleted = new Set(deletedJobs);
  /** A journal entry goes with its job (read a record at a time: they may be millions). */
  const journalEntryGoes = (key: string) => deleted.has(journalOwnerOf(key, jobIds) ?? '');
  if (apply) {
    for (const jobId of deletedJobs) {
      // Asked again just before: a job started again under the same id since is kept.
      if ((await directory.standing(jobId)).state === 'running') {
        deleted.delete(jobId);
        keptJobs.push(jobId);
        continue;
      }
      await deleteJob(maintenance, jobId);
      await pauseForTest(PAUSE_PRUNE_AFTER_JOB_STREAMS);
    }
    for await (const entry of maintenance.listRecordKeys(TOOL_JOURNAL_RECORD)) {
      if (journalEntryGoes(entry.key)) {
        await maintenance.deleteRecord(TOOL_JOURNAL_RECORD, entry.key);
      }
    }
    // The status record last: it is what lists the job for the next pruner.
    for (const jobId of deleted) await maintenance.deleteRecord(JOB_STATUS_RECORD, jobId);
  }

  // A tool call's record serves only its own run while that runs; the grace covers a run that
  // started after the list of running workflows was read.
  const toolCallRecordStale = (entry: RecordKey) =>
    !runningRuns.has(runIdOf(entry.key)) && entry.writtenAtMs < storeNow - graceMs;
  let staleToolCalls = 0;
  for await (const entry of maintenance.listRecordKeys(ANSWERED_TOOL_CALL_RECORD)) {
    if (!toolCallRecordStale(entry)) continue;
    staleToolCalls += 1;
    if (apply) await maintenance.deleteRecord(ANSWERED_TOOL_CALL_RECORD, entry.key);
  }

  // Nothing refers to a write's leftover, so the grace alone decides: no write takes that long.
  const abandonedWrites = await maintenance.removeAbandonedWrites(storeNow - graceMs, apply);

  // A job kept that Temporal does not know and that stored no ending may run where this
  // pruner cannot see (another namespace), holding references in its state: no object goes.
  const { cutoffMs, because, heldRefs, settledJobs, heldBy } =
    unfinishedUnknownJobs.length > 0 && !options.forgetUnfinished
      ? {
          cutoffMs: undefined,
          heldBy: undefined,
          heldRefs: [],
          settledJobs: 0,
          because:
            `${unfinishedUnknownJobs.length} jobs that Temporal does not know never stored an ` +
            'ending, and may run on another namespace',
        }
      : await objectCutoff(store, directory, running, storeNow, graceMs, progress);
  const report: PruneReport = {
    applied: apply,
    deletedJobs: [...deleted],
    keptJobs: keptJobs.filter((jobId) => storedJobIds.has(jobId)).length,
    unfinishedUnknownJobs,
    deletedToolCallRecords: staleToolCalls,
    objectCutoffMs: cutoffMs,
    cutoffHeldBy: heldBy,
    objectsKeptBecause: because,
    removedObjects: { count: 0, bytes: 0 },
    reachableObjects: 0,
    settledJobs,
    abandonedWrites,
  };
  if (cutoffMs === undefined) return report;
  if (settledJobs > 0) {
    progress(
      `${settledJobs} running jobs waiting for a message or an approval named what they hold`,
    );
  }

  const reachable = new ReachableObjects(store);
  // What the jobs that did not hold the cutoff back said they hold.
  for (const ref of heldRefs) reachable.addObject(ref);
  for (const [index, jobId] of keptJobs.entries()) {
    await markJob(store, reachable, jobId);
    await reachable.settleWhenMany();
    if ((index + 1) % 100 === 0) progress(`followed the references of ${index + 1} jobs`);
  }
  // Listed again, not held from above: the same tests skip what went (or would go, in a dry run).
  for await (const entry of maintenance.listRecordKeys(ANSWERED_TOOL_CALL_RECORD)) {
    if (toolCallRecordStale(entry)) continue;
    const value = await store.getRecord(ANSWERED_TOOL_CALL_RECORD, entry.key);
    if (value !== undefined) reachable.addRoot(value);
    await reachable.settleWhenMany();
  }
  for await (const entry of maintenance.listRecordKeys(TOOL_JOURNAL_RECORD)) {
    if (journalEntryGoes(entry.key)) continue;
    const value = await store.getRecord(TOOL_JOURNAL_RECORD, entry.key);
    if (value !== undefined) reachable.addRoot(value);
    await reachable.settleWhenMany();
  }
  // Objects put since the cutoff are kept, and so is what they refer to: a job that has not
  // stored its status yet may start from a transcript node new to the store that names
  // messages stored long before (the `Agent` class's next conversation job does).
  for await (const page of maintenance.listObjectsPutSince(cutoffMs)) {
    for (const object of page) reachable.addObject(object.ref);
    await reachable.settleWhenMany();
  }
  await reachable.settle();
  report.reachableObjects = reachable.size;
  progress(`${reachable.size} objects kept: reached from the jobs kept, or put since the cutoff`);
  let reported = 0;

  for await (const page of maintenance.listObjectsPutBefore(cutoffMs)) {
    const unreachable: ObjectRef[] = [];
    for (const object of page) {
      if (reachable.has(object.ref)) continue;
      unreachable.push(object.ref);
      if (!apply) {
        report.removedObjects.count += 1;
        report.removedObjects.bytes += object.bytes;
      }
    }
    if (apply && unreachable.length > 0) {
      const removed = await maintenance.removeObjectsPutBefore(unreachable, cutoffMs);
      report.removedObjects.count += removed.count;
      report.removedObjects.bytes += removed.bytes;
    }
    if (report.removedObjects.count - reported >= 10_000) {
      reported = report.removedObjects.count;
      progress(`${apply ? 'removed' : 'found'} ${reported} objects no kept job reaches`);
    }
  }
  return report;
}

type Verdict = 'keep' | 'delete' | 'unfinished';

async function judgeJob(
  store: JobStore,
  directory: JobDirectory,
  jobId: string,
  statusWrittenAtMs: number | undefined,
  threshold: number,
  storeNow: number,
): Promise<Verdict> {
  const standing = await directory.standing(jobId);
  if (standing.state === 'running') return 'keep';
  if (standing.state === 'closed') return standing.closedAtMs < threshold ? 'delete' : 'keep';
  // Temporal no longer knows the job: its stored status says whether and when it ended.
  if (statusWrittenAtMs !== undefined && statusWrittenAtMs >= storeNow - MINIMUM_RETENTION_MS) {
    throw new JobStoreError(
      `Temporal does not know job ${jobId}, whose status was stored ` +
        `${Math.round((storeNow - statusWrittenAtMs) / 60_000)} min ago, sooner than any ` +
        "namespace's retention: this is not the Temporal namespace its workers use " +
        '(TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE). Nothing was deleted.',
    );
  }
  if (statusWrittenAtMs === undefined || statusWrittenAtMs >= threshold) return 'keep';
  const status = await store.getRecord(JOB_STATUS_RECORD, jobId);
  const phase = (status as { phase?: unknown } | undefined)?.phase;
  return phase === 'done' ? 'delete' : 'unfinished';
}

async function deleteJob(maintenance: StoreMaintenance, jobId: string): Promise<void> {
  await maintenance.deleteJobStreams(jobId);
  await maintenance.deleteRecord(ANSWERED_CALL_RECORD, jobId);
}

/** Adds what a kept job's events, live events and records refer to. */
async function markJob(store: JobStore, reachable: ReachableObjects, jobId: string): Promise<void> {
  for (const read of [
    (afterSeq: number) => store.readEvents(jobId, { afterSeq }),
    (afterSeq: number) => store.readLiveEvents(jobId, { afterSeq }),
  ]) {
    for (let afterSeq = 0; ;) {
      const page = await read(afterSeq);
      const last = page.at(-1);
      if (last === undefined) break;
      for (const event of page) reachable.addRoot(event.event);
      await reachable.settleWhenMany();
      afterSeq = last.seq;
    }
  }
  for (const namespace of [JOB_STATUS_RECORD, ANSWERED_CALL_RECORD]) {
    const value = await store.getRecord(namespace, jobId);
    if (value !== undefined) reachable.addRoot(value);
  }
}

/** Running workflows asked at once what they hold. */
const HELD_OBJECTS_CONCURRENCY = 16;

interface ObjectCutoff {
  cutoffMs: number | undefined;
  because: string | undefined;
  /** The running workflow whose first start set the cutoff, if one did. */
  heldBy: string | undefined;
  /** Objects the settled jobs hold: kept, with what they reach. */
  heldRefs: ObjectRef[];
  settledJobs: number;
}

/**
 * Before when objects may go: the grace before now, and before the start of every running
 * workflow's first run, except a job settled now (waiting for a message or an approval with
 * nothing under way), which counts as started now once what it names is kept (see
 * `HeldObjects`). A workflow whose first start cannot be told (an older server, a job that
 * continued as new before its status said when it started) keeps every object.
 */
async function objectCutoff(
  store: JobStore,
  directory: JobDirectory,
  running: readonly RunningWorkflow[],
  now: number,
  graceMs: number,
  progress: (line: string) => void,
): Promise<ObjectCutoff> {
  if (running.length > 0) {
    progress(
      `asking ${running.length} running workflows what they hold ` +
        '(one that no worker answers for takes a few seconds)',
    );
  }
  const answers = await mapWithConcurrency(running, HELD_OBJECTS_CONCURRENCY, (workflow) =>
    directory.heldObjects(workflow),
  );
  const heldRefs: ObjectRef[] = [];
  let settledJobs = 0;
  let earliest = now;
  let heldBy: string | undefined;
  for (const [index, workflow] of running.entries()) {
    const held = answers[index];
    if (held?.settled) {
      settledJobs += 1;
      heldRefs.push(...held.refs);
      continue;
    }
    const started = workflow.chainStartedAtMs ?? (await startFromStatus(store, workflow));
    if (started === undefined) {
      return {
        cutoffMs: undefined,
        because: `the first start of running workflow ${workflow.workflowId} is not known`,
        heldBy: undefined,
        heldRefs: [],
        settledJobs: 0,
      };
    }
    if (started < earliest) {
      earliest = started;
      heldBy = workflow.workflowId;
    }
  }
  return { cutoffMs: earliest - graceMs, because: undefined, heldBy, heldRefs, settledJobs };
}

async function startFromStatus(
  store: JobStore,
  workflow: RunningWorkflow,
): Promise<number | undefined> {
  const status = (await store.getRecord(JOB_STATUS_RECORD, workflow.workflowId)) as
    { startedAt?: unknown; continuedAsNew?: unknown } | undefined;
  if (typeof status?.startedAt === 'number') return status.startedAt;
  if (status === undefined || status.continuedAsNew === 0) return workflow.runStartedAtMs;
  return undefined;
}

/**
 * The job a tool-journal key belongs to: keys are `<job id>/<model call>/<tool call id>`, and a
 * job id may hold `/` itself, so the longest known job id the key starts with wins.
 */
function journalOwnerOf(key: string, jobIds: ReadonlySet<string>): string | undefined {
  for (let slash = key.lastIndexOf('/'); slash > 0; slash = key.lastIndexOf('/', slash - 1)) {
    const candidate = key.slice(0, slash);
    if (jobIds.has(candidate)) return candidate;
  }
  return undefined;
}

/** The run id of an answered tool call's key (`<run id>/<activity id>`). */
function runIdOf(key: string): string {
  const slash = key.indexOf('/');
  return slash < 0 ? key : key.slice(0, slash);
}

async function collect<Item>(items: AsyncIterable<Item>): Promise<Item[]> {
  const all: Item[] = [];
  for await (const item of items) all.push(item);
  return all;
}
