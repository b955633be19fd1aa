// `dar prune` on a large embedded store: a dry run of `pruneStore` over synthetic finished jobs,
// half of them ended 40 days ago and half 2 days ago. Its wall time against a plain read of
// every object of the same store (listed and read back, 16 at a time), and the memory it holds
// once it has marked what it keeps against a plain `Set` of as many references.
import { mkdtempSync, readdirSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Client } from '@temporalio/client';
import { JOB_STATUS_RECORD } from '../src/activities/job-status-record.js';
import { emptyUsage, type AssistantMessage, type ToolResultMessage } from '../src/core/index.js';
import { pruneStore, type PruneReport } from '../src/retention/prune-store.js';
import { temporalJobDirectory } from '../src/retention/temporal-job-directory.js';
import { mapWithConcurrency } from '../src/store/concurrency.js';
import { FileJobStore } from '../src/store/file/file-job-store.js';
import { sha256Hex } from '../src/store/object-ref.js';
import type { EventToAppend, ObjectRef } from '../src/store/references.js';
import { appendToTranscript, thinAssistantMessage } from '../src/transcript/transcript-nodes.js';
import type { TranscriptPointer } from '../src/workflows/job-types.js';
import { ratio, round } from './statistics.js';

export interface PruneCase {
  jobs: number;
  turnsPerJob: number;
}

const DAY_MS = 86_400_000;
/** Jobs that ended longer ago than this are deleted (`dar prune --older-than 30d`). */
const OLDER_THAN_MS = 30 * DAY_MS;
/** Every file's age, and the age of the recent half's statuses (over a day: see below). */
const OLD_AGE_MS = 40 * DAY_MS;
const RECENT_AGE_MS = 2 * DAY_MS;
/** Jobs filled at once. */
const FILL_CONCURRENCY = 16;
/** Objects the plain read reads at once: as many as the prune reads at once. */
const READ_CONCURRENCY = 16;
/** What each tool output repeats to reach about 200 characters. */
const OUTPUT_FILLER = 'The file lists the settings the service reads when it starts, one a line. ';

const MEGABYTE = 2 ** 20;

function jobIdOf(index: number): string {
  return `prune-bench-${index}`;
}

/** About 200 characters, different for every job and turn (so the store keeps each one). */
function toolOutputText(jobIndex: number, turn: number): string {
  return `Job ${jobIndex}, turn ${turn}: ${OUTPUT_FILLER}${OUTPUT_FILLER}`.slice(0, 200);
}

/**
 * One turn of a job as the runner stores it: the tool's output and the assistant message as
 * objects, and a transcript node naming both (the message by `ref`, the result by `contentRef`).
 * Returns the turn's event and the transcript after it.
 */
async function storeTurn(
  store: FileJobStore,
  jobIndex: number,
  turn: number,
  pointer: TranscriptPointer,
): Promise<{ event: unknown; pointer: TranscriptPointer }> {
  const toolCallId = `call-${turn}`;
  const contentRef = await store.putObject({
    content: [{ type: 'text', text: toolOutputText(jobIndex, turn) }],
    details: null,
  });
  const message: AssistantMessage = {
    role: 'assistant',
    content: [
      { type: 'text', text: `Job ${jobIndex}, turn ${turn}: reading the next file.` },
      { type: 'toolCall', id: toolCallId, name: 'read', arguments: { path: `file-${turn}.txt` } },
    ],
    usage: emptyUsage(),
    stopReason: 'toolUse',
    timestamp: turn,
  };
  const thinMessage = thinAssistantMessage(message, await store.putObject(message));
  const toolResult: ToolResultMessage = {
    role: 'toolResult',
    toolCallId,
    toolName: 'read',
    content: [],
    isError: false,
    timestamp: turn,
    contentRef,
  };
  const next = await appendToTranscript(store, pointer, [thinMessage, toolResult]);
  const event = {
    type: 'turn_end',
    message: thinMessage,
    toolResults: [toolResult],
    transcript: next,
  };
  return { event, pointer: next };
}

/** A finished job of `turns` turns: its objects, one event a turn, and its `done` status. */
async function storeFinishedJob(store: FileJobStore, jobIndex: number, turns: number) {
  let pointer: TranscriptPointer = { head: null, count: 0 };
  const events: EventToAppend[] = [];
  for (let turn = 0; turn < turns; turn += 1) {
    const stored = await storeTurn(store, jobIndex, turn, pointer);
    pointer = stored.pointer;
    events.push({ seq: turn + 1, event: stored.event });
  }
  const jobId = jobIdOf(jobIndex);
  await store.appendEvents(jobId, events, {});
  await store.putRecord(JOB_STATUS_RECORD, jobId, { phase: 'done', transcript: pointer });
}

/** Sets the time of every file under `folder` (and its folders) to `seconds`. */
function setFileTimes(folder: string, seconds: number): void {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) setFileTimes(path, seconds);
    else if (entry.isFile()) utimesSync(path, seconds, seconds);
  }
}

/** Where the file store keeps a job's status: `records/<namespace's sha256>/<key's sha256>.json`. */
function statusRecordPath(store: FileJobStore, jobId: string): string {
  return join(store.folder, 'records', sha256Hex(JOB_STATUS_RECORD), `${sha256Hex(jobId)}.json`);
}

/**
 * Everything stored 40 days ago, then the statuses of the second half of the jobs 2 days ago:
 * the first half ended before the threshold, the second after it. A job Temporal does not
 * know is judged by its status's time, and one newer than a day would stop the prune (it
 * would mean the wrong namespace).
 */
function ageStore(store: FileJobStore, jobs: number): void {
  const now = Date.now();
  for (const part of ['objects', 'records', 'events']) {
    setFileTimes(join(store.folder, part), (now - OLD_AGE_MS) / 1000);
  }
  const recent = (now - RECENT_AGE_MS) / 1000;
  for (let index = Math.floor(jobs / 2); index < jobs; index += 1) {
    utimesSync(statusRecordPath(store, jobIdOf(index)), recent, recent);
  }
}

/**
 * How many objects the store holds, counted a page at a time: an array of every reference,
 * though dropped, stayed on the heap through the prune (about 70 MB of the full size's heap
 * before it, freed part way), and passed for a heap the prune did not use.
 */
async function countObjects(store: FileJobStore): Promise<number> {
  let count = 0;
  for await (const page of store.maintenance().listObjectsPutSince(0)) count += page.length;
  return count;
}

/** Every object of the store, through its maintenance listing. */
async function listAllObjects(store: FileJobStore): Promise<ObjectRef[]> {
  const refs: ObjectRef[] = [];
  for await (const page of store.maintenance().listObjectsPutSince(0)) {
    for (const object of page) refs.push(object.ref);
  }
  return refs;
}

/**
 * A full garbage collection: `global.gc` when node runs with `--expose-gc`. `npm run bench`
 * runs node without it, and the heap figures are then noise (garbage of the fill is collected
 * in the middle of a measure, which can even come out negative): V8 gives the same function to
 * a context made while the flag is set, which is set for that moment only, so that the
 * benchmarks after this one run as before.
 */
function garbageCollector(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed !== undefined) return exposed;
  setFlagsFromString('--expose-gc');
  try {
    return runInNewContext('gc') as () => void;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

let collector: (() => void) | undefined;

function collectGarbage(): void {
  collector ??= garbageCollector();
  collector();
}

/**
 * A prune that kept nothing or removed nothing measured neither half of its work: stop,
 * saying what it did instead.
 */
function checkReport(report: PruneReport, jobs: number, objects: number): void {
  const oldJobs = Math.floor(jobs / 2);
  const halfOfObjects = objects / 2;
  const problems = [
    report.deletedJobs.length !== oldJobs &&
      `it would delete ${report.deletedJobs.length} jobs, not the ${oldJobs} old ones`,
    report.reachableObjects === 0 && 'it found no object to keep',
    report.removedObjects.count === 0 && 'it found no object to remove',
    Math.abs(report.reachableObjects - halfOfObjects) > objects * 0.05 &&
      `it kept ${report.reachableObjects} objects of ${objects}, not about half`,
  ].filter((problem) => problem !== false);
  if (problems.length > 0) {
    const because = report.objectsKeptBecause
      ? ` (objects kept: ${report.objectsKeptBecause})`
      : '';
    throw new Error(
      `The prune benchmark's dry run is not as set up: ${problems.join('; ')}${because}`,
    );
  }
}

/** The heap and the memory of typed arrays (where the prune keeps the references it reached). */
function retainedBytes(): number {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

/**
 * The dry run, timed, and what it holds when it has marked every object it keeps (its largest
 * set): the heap and typed arrays after a collection at that moment, which the prune's progress
 * line `N objects kept: ...` marks, over what they held before it. Garbage is left out: V8
 * collects it before it runs out of heap, so only what the prune holds decides that.
 */
async function measurePrune(store: FileJobStore, client: Client) {
  collectGarbage();
  const before = retainedBytes();
  let atMarkEnd: number | undefined;
  const started = performance.now();
  const report = await pruneStore({
    store,
    directory: temporalJobDirectory(client),
    olderThanMs: OLDER_THAN_MS,
    apply: false,
    onProgress: (line) => {
      if (!/^\d+ objects kept/.test(line)) return;
      collectGarbage();
      atMarkEnd = retainedBytes();
    },
  });
  const seconds = (performance.now() - started) / 1000;
  if (atMarkEnd === undefined) {
    throw new Error('The prune never said how many objects it kept: its progress lines changed');
  }
  return { report, seconds, heldBytes: atMarkEnd - before };
}

/** The time baseline: every object listed, then read back, `READ_CONCURRENCY` at a time. */
async function measurePlainRead(store: FileJobStore) {
  const started = performance.now();
  const refs = await listAllObjects(store);
  await mapWithConcurrency(refs, READ_CONCURRENCY, async (ref) => {
    // Nothing kept: the prune keeps no object's value either.
    await store.getObject(ref);
  });
  const seconds = (performance.now() - started) / 1000;
  return { objectsRead: refs.length, seconds };
}

/**
 * `sha256:` and 64 hex as one flat string, as a reference read back from JSON is (`'sha256:' +
 * hex` would be a rope holding the two, larger than the string itself).
 */
function flatReference(index: number): string {
  return Buffer.from(`sha256:${sha256Hex(String(index))}`, 'latin1').toString('latin1');
}

/** The heap baseline: what a `Set` of `count` references holds, measured after a collection. */
function measureReferenceSet(count: number) {
  collectGarbage();
  const heapBefore = process.memoryUsage().heapUsed;
  const references = new Set<string>();
  for (let index = 0; index < count; index += 1) references.add(flatReference(index));
  // Garbage of the building goes first; the set, still referenced below, stays.
  collectGarbage();
  const heapBytes = process.memoryUsage().heapUsed - heapBefore;
  return { refs: references.size, heapBytes };
}

/**
 * Fills a fresh embedded store with `jobs` finished jobs of `turnsPerJob` turns, ages it so that
 * half of them ended before the threshold, and measures a dry run of `pruneStore` on it against
 * the bench's dev server (which knows none of the jobs, as it does not once Temporal's
 * retention has passed) and its two baselines. The store's folder is removed afterwards.
 */
export async function benchPrune(client: Client, pruneCase: PruneCase) {
  const { jobs, turnsPerJob } = pruneCase;
  const folder = mkdtempSync(join(tmpdir(), 'dar-bench-prune-'));
  try {
    // Without flushes: filling is not what is measured.
    const store = await FileJobStore.open({ folder, flushWrites: false });
    const fillStarted = performance.now();
    const indexes = Array.from({ length: jobs }, (_, index) => index);
    await mapWithConcurrency(indexes, FILL_CONCURRENCY, (index) =>
      storeFinishedJob(store, index, turnsPerJob),
    );
    const fillSeconds = (performance.now() - fillStarted) / 1000;
    const objects = await countObjects(store);
    console.log(`\nFilled a store of ${objects} objects in ${round(fillSeconds, 1)} s`);
    ageStore(store, jobs);

    const prune = await measurePrune(store, client);
    checkReport(prune.report, jobs, objects);
    const plainRead = await measurePlainRead(store);
    const referenceSet = measureReferenceSet(prune.report.reachableObjects);

    const kept = prune.report.reachableObjects;
    const pruneMicrosecondsPerKept = (prune.seconds * 1e6) / kept;
    const readMicrosecondsPerObject = (plainRead.seconds * 1e6) / plainRead.objectsRead;
    const pruneBytesPerKept = prune.heldBytes / kept;
    const setBytesPerRef = referenceSet.heapBytes / referenceSet.refs;
    return {
      jobs,
      turnsPerJob,
      objects,
      fillSeconds: round(fillSeconds, 1),
      prune: {
        seconds: round(prune.seconds, 2),
        deletedJobs: prune.report.deletedJobs.length,
        keptJobs: prune.report.keptJobs,
        keptObjects: kept,
        removedObjects: prune.report.removedObjects.count,
        keptObjectsPerSecond: Math.round(kept / prune.seconds),
        microsecondsPerKeptObject: round(pruneMicrosecondsPerKept, 1),
        heldMegabytesAtMarkEnd: round(prune.heldBytes / MEGABYTE, 1),
        heldBytesPerKeptObject: Math.round(pruneBytesPerKept),
      },
      plainRead: {
        objectsRead: plainRead.objectsRead,
        seconds: round(plainRead.seconds, 2),
        microsecondsPerObject: round(readMicrosecondsPerObject, 1),
      },
      referenceSet: {
        refs: referenceSet.refs,
        heapMegabytes: round(referenceSet.heapBytes / MEGABYTE, 1),
        bytesPerRef: Math.round(setBytesPerRef),
      },
      ratios: {
        timePerKeptObject: ratio(pruneMicrosecondsPerKept, readMicrosecondsPerObject),
        memoryPerKeptObject: ratio(pruneBytesPerKept, setBytesPerRef),
      },
    };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
