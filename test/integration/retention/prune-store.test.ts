/**
 * `pruneStore` on a real dev server and the embedded store, while a job runs: the jobs that
 * ended before the threshold lose their events, records and the objects only they reached;
 * jobs kept (ended later, or running) read back whole and a running one goes on; objects put
 * recently, or put again, are kept whatever refers to them.
 */
import { readdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { ANSWERED_TOOL_CALL_RECORD } from '../../../src/activities/answered-tool-calls.js';
import { JOB_STATUS_RECORD } from '../../../src/activities/job-status-record.js';
import { decideApproval } from '../../../src/client/approvals.js';
import type { PolicyRule } from '../../../src/policy/policy-file.js';
import type { AgentJob } from '../../../src/client/job-client.js';
import type { JobDirectory } from '../../../src/retention/job-directory.js';
import { DEFAULT_GRACE_MS, pruneStore } from '../../../src/retention/prune-store.js';
import { pendingApprovalsQuery } from '../../../src/workflows/definitions.js';
import { HELD_REFERENCES_LIMIT, type HeldObjects } from '../../../src/workflows/held-objects.js';
import { temporalJobDirectory } from '../../../src/retention/temporal-job-directory.js';
import { FileJobStore } from '../../../src/store/file/file-job-store.js';
import { TOOL_JOURNAL_RECORD } from '../../../src/tools/store-tool-journal.js';
import { ObjectNotFound } from '../../../src/store/store-errors.js';
import type { ObjectRef } from '../../../src/store/references.js';
import { finishedJob } from './finished-job.js';
import {
  jobInput,
  scriptedModel,
  startTestJob,
  temporaryFolder,
  text,
  toolCall,
  uniqueName,
  useAgentTestServer,
  waitForPhase,
} from '../../support/agent-harness.js';

const server = useAgentTestServer('prune-store');
const DAY_MS = 86_400_000;

function objectFiles(store: FileJobStore): string[] {
  return readdirSync(join(store.folder, 'objects'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Sets every object and record file's time `ageMs` back: the store as it is after long use. */
function ageStore(store: FileJobStore, ageMs: number): void {
  const seconds = (Date.now() - ageMs) / 1000;
  for (const part of ['objects', 'records']) {
    for (const entry of readdirSync(join(store.folder, part), {
      recursive: true,
      withFileTypes: true,
    })) {
      if (entry.isFile()) utimesSync(join(entry.parentPath, entry.name), seconds, seconds);
    }
  }
}

/** Polls until the job has made `turns` turns and waits again (20 s at most). */
async function waitForTurns(job: AgentJob, turns: number): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const status = await job.status();
    if (status.turns >= turns && status.phase === 'waiting') return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`job never reached ${turns} turns`);
}

/** Sends the kept-open job a follow-up: it answers it, and its transcript reads back whole. */
async function expectFollowUpAnswered(job: AgentJob, answer: string): Promise<void> {
  await job.followUp('one more');
  await waitForTurns(job, 2);
  const transcript = await job.transcript();
  expect(transcript.map((message) => message.role)).toEqual([
    'user',
    'assistant',
    'user',
    'assistant',
  ]);
  expect(JSON.stringify(transcript)).toContain(answer);
}

/** The keys of a record namespace, sorted. */
async function recordKeys(store: FileJobStore, namespace: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const entry of store.maintenance().listRecordKeys(namespace)) keys.push(entry.key);
  return keys.sort();
}

async function expectMissing(store: FileJobStore, ref: ObjectRef): Promise<void> {
  await expect(store.getObject(ref)).rejects.toBeInstanceOf(ObjectNotFound);
}

test('prune deletes jobs ended before the threshold and the objects only they reached; kept and running jobs stay whole', async () => {
  const store = server.store as FileJobStore;
  const directory = temporalJobDirectory(server.environment.client, 1000);

  const old = await finishedJob('alpha', (input) => startTestJob(server, input));
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const threshold = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const recent = await finishedJob('delta', (input) => startTestJob(server, input));
  const oldFinal = (await old.result()).finalMessageRef as ObjectRef;
  const recentFinal = (await recent.result()).finalMessageRef as ObjectRef;
  const recentTranscript = await recent.transcript();
  const recentEvents = await recent.allEvents();

  // Everything stored so far was put three days ago; then a job starts and stays running.
  ageStore(store, 3 * DAY_MS);
  const unreachableOld = await store.putObject({ note: 'old and referred to by nothing' });
  const putAgain = await store.putObject({ note: 'old, then put again' });
  ageStore(store, 3 * DAY_MS);
  await store.putObject({ note: 'old, then put again' });
  const unreachableNew = await store.putObject({ note: 'new and referred to by nothing' });

  const folder = temporaryFolder();
  const runningModel = scriptedModel(folder, [
    { stopReason: 'stop', content: [text('first answer')] },
    { stopReason: 'stop', content: [text('second answer')] },
  ]);
  const running = await startTestJob(
    server,
    jobInput({ model: runningModel, workspace: folder, prompt: 'stay', keepOpenMs: 60_000 }),
  );
  await waitForPhase(running, 'waiting');
  // Another application's workflow in the namespace (no worker polls its queue): it runs, but
  // it is no job of the store's, and the report does not count it as one kept.
  const otherApplication = await server.environment.client.workflow.start('billingRun', {
    taskQueue: uniqueName('other-application'),
    workflowId: uniqueName('billing'),
  });

  // One moment for both runs: a prune waits for the workflow no worker answers for.
  const now = Date.now();
  const options = { store, directory, olderThanMs: now - threshold, now };
  const filesBefore = objectFiles(store).length;
  // Each finished job left a record of its bash call's answer (its run has ended, and the
  // records are three days old) and a journal entry of its write (which goes with its job).
  const answeredCalls = () => recordKeys(store, ANSWERED_TOOL_CALL_RECORD);
  const journal = () => recordKeys(store, TOOL_JOURNAL_RECORD);
  expect(await answeredCalls()).toHaveLength(2);
  const journalBefore = await journal();
  expect(journalBefore).toHaveLength(2);
  const dryRun = await pruneStore(options);
  expect(dryRun.applied).toBe(false);
  expect(dryRun.deletedJobs).toEqual([old.workflowId]);
  expect(dryRun.keptJobs).toBe(2); // the recent job and the running one
  expect(dryRun.removedObjects.count).toBeGreaterThan(0);
  expect(dryRun.deletedToolCallRecords).toBe(2);
  expect(objectFiles(store)).toHaveLength(filesBefore);
  expect(await old.allEvents()).not.toHaveLength(0);
  expect(await answeredCalls()).toHaveLength(2);
  expect(await journal()).toEqual(journalBefore);

  const report = await pruneStore({ ...options, apply: true });
  expect(report.deletedJobs).toEqual([old.workflowId]);
  expect(report.removedObjects.count).toBe(dryRun.removedObjects.count);
  expect(objectFiles(store)).toHaveLength(filesBefore - report.removedObjects.count);

  expect(report.deletedToolCallRecords).toBe(2);
  expect(await answeredCalls()).toEqual([]);
  expect(await journal()).toEqual(
    journalBefore.filter((key) => key.startsWith(`${recent.workflowId}/`)),
  );
  expect(await journal()).toHaveLength(1);

  // The old job: no events, no status record, its own answer gone.
  expect(await store.readEvents(old.workflowId)).toEqual([]);
  expect(await store.getRecord(JOB_STATUS_RECORD, old.workflowId)).toBeUndefined();
  await expectMissing(store, oldFinal);
  await expectMissing(store, unreachableOld);

  // Kept: the recent job whole, objects put recently or put again, the running job's data.
  expect(await store.getObject(recentFinal)).toMatchObject({ role: 'assistant' });
  expect(await recent.transcript()).toEqual(recentTranscript);
  expect(await recent.allEvents()).toEqual(recentEvents);
  expect(await store.getObject(putAgain)).toEqual({ note: 'old, then put again' });
  expect(await store.getObject(unreachableNew)).toEqual({ note: 'new and referred to by nothing' });

  // The running job goes on after the prune and its transcript reads back whole.
  await expectFollowUpAnswered(running, 'second answer');
  await running.handle.cancel();
  await otherApplication.terminate();

  // A second prune finds nothing more of the old job.
  const later = Date.now();
  const again = await pruneStore({
    ...options,
    now: later,
    olderThanMs: later - threshold,
    apply: true,
  });
  expect(again.deletedJobs).toEqual([]);
}, 120_000);

/** What the job answers it holds, asked through the directory as a pruner asks. */
function heldBy(directory: JobDirectory, job: AgentJob): Promise<HeldObjects | undefined> {
  const workflow = { workflowId: job.workflowId, runId: '', runStartedAtMs: 0 };
  return directory.heldObjects({ ...workflow, chainStartedAtMs: undefined });
}

/** Asks the job what it holds until it says it is settled; returns that answer. */
async function waitUntilSettled(directory: JobDirectory, job: AgentJob): Promise<HeldObjects> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const held = await heldBy(directory, job);
    if (held?.settled) return held;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`job ${job.workflowId} never said it was settled`);
}

test('a kept-open job waiting for a message names what it holds: it does not hold the cutoff back, and goes on afterwards', async () => {
  const store = server.store as FileJobStore;
  const directory = temporalJobDirectory(server.environment.client);
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [
    { stopReason: 'stop', content: [text('first answer')] },
    { stopReason: 'stop', content: [text('second answer')] },
  ]);
  // Its tools make a setup large enough to be stored: its later calls send it by reference,
  // which only the job's state holds.
  const waiting = await startTestJob(
    server,
    jobInput({ model, workspace: folder, prompt: 'stay open', keepOpenMs: 60_000 }),
  );
  const held = await waitUntilSettled(directory, waiting);
  const status = (await store.getRecord(JOB_STATUS_RECORD, waiting.workflowId)) as {
    transcript: { head: string };
  };
  // Its transcript's head, and the setup its calls send by reference.
  expect(held?.refs).toContain(status.transcript.head);
  expect(held?.refs.length).toBe(2);
  const junk = await store.putObject({ note: 'put while the job waits, referred to by nothing' });

  // Three hours from now: the grace alone decides, and every object of the job is older.
  const now = Date.now() + 3 * 3_600_000;
  const report = await pruneStore({ store, directory, olderThanMs: DAY_MS, now, apply: true });
  expect(report.settledJobs).toBe(1);
  expect(report.cutoffHeldBy).toBeUndefined();
  expect(report.objectCutoffMs).toBe(now - DEFAULT_GRACE_MS);
  expect(report.removedObjects.count).toBeGreaterThan(0);
  await expectMissing(store, junk);
  for (const ref of held?.refs ?? []) await store.getObject(ref);

  await expectFollowUpAnswered(waiting, 'second answer');
  await waiting.handle.cancel();
}, 120_000);

/** Asks a human for any bash command that says `needs-approval` (R22). */
const approvalPolicy = {
  rules: [
    {
      tool: 'bash',
      argument: 'command',
      pattern: 'needs-approval',
      reason: 'look',
      approve: true,
    } satisfies PolicyRule,
  ],
};

/**
 * Checks what a job waiting for a decision on call `asks` says it holds: `output`'s stored result
 * (held by its batch alone) and the transcript's head. Then a prune 3 hours later removes an
 * object put meanwhile and keeps what the job named; approved, the job ends with every result.
 */
async function expectApprovalWaitSettled(job: AgentJob, output: string): Promise<void> {
  const store = server.store as FileJobStore;
  const directory = temporalJobDirectory(server.environment.client);
  const held = await waitUntilSettled(directory, job);
  const named = await Promise.all((held?.refs ?? []).map((ref) => store.getObject(ref)));
  expect(named.some((object) => JSON.stringify(object).includes(output))).toBe(true);
  const status = (await store.getRecord(JOB_STATUS_RECORD, job.workflowId)) as {
    transcript: { head: string };
  };
  expect(held?.refs).toContain(status.transcript.head);
  const junk = await store.putObject({ note: 'put while the call waits, referred to by nothing' });

  const now = Date.now() + 3 * 3_600_000;
  const report = await pruneStore({ store, directory, olderThanMs: DAY_MS, now, apply: true });
  expect(report.settledJobs).toBe(1);
  expect(report.cutoffHeldBy).toBeUndefined();
  expect(report.objectCutoffMs).toBe(now - DEFAULT_GRACE_MS);
  await expectMissing(store, junk);
  for (const ref of held?.refs ?? []) await store.getObject(ref);

  await decideApproval(server.environment.client, job.workflowId, {
    toolCallId: 'asks',
    decision: 'approve',
  });
  const result = await job.result();
  expect(result.status.stopReason).toBe('stop');
  const transcript = JSON.stringify(await job.transcript());
  for (const expected of [output, 'needs-approval', 'both calls answered']) {
    expect(transcript).toContain(expected);
  }
}

/** A model asking for `first` and the call `asks` (which needs approval) in one batch, then done. */
function approvalBatchModel(folder: string, first: ReturnType<typeof toolCall>): string {
  return scriptedModel(folder, [
    {
      stopReason: 'toolUse',
      content: [first, toolCall('asks', 'bash', { command: 'echo needs-approval' })],
    },
    { stopReason: 'stop', content: [text('both calls answered')] },
  ]);
}

test('a job waiting for an approval names what it holds once no call of its batch runs: it does not hold the cutoff back, and goes on once decided', async () => {
  const folder = temporaryFolder();
  // R15, R22: the two calls of one batch run side by side; `asks` waits for a decision while
  // `slow` runs, and goes on waiting after it ended (its result then held by the batch alone).
  const model = approvalBatchModel(
    folder,
    toolCall('slow', 'bash', { command: 'sleep 5; echo slow-call-output' }),
  );
  const job = await startTestJob(
    server,
    jobInput({ model, workspace: folder, prompt: 'go', policy: approvalPolicy }),
  );
  const directory = temporalJobDirectory(server.environment.client);
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if ((await job.handle.query(pendingApprovalsQuery)).length > 0) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(await job.handle.query(pendingApprovalsQuery)).toHaveLength(1);
  // `slow` still runs: its output, not put yet, may come to name any object.
  expect(await heldBy(directory, job)).toEqual({ settled: false, refs: [] });
  await expectApprovalWaitSettled(job, 'slow-call-output');
}, 120_000);

test('R14: in a sequential batch, a call waiting for an approval after one that ended settles the same way', async () => {
  const folder = temporaryFolder();
  const model = approvalBatchModel(
    folder,
    toolCall('first', 'bash', { command: 'echo first-call-output' }),
  );
  const job = await startTestJob(
    server,
    jobInput({
      model,
      workspace: folder,
      prompt: 'go',
      policy: approvalPolicy,
      toolExecution: 'sequential',
    }),
  );
  await expectApprovalWaitSettled(job, 'first-call-output');
}, 120_000);

test('a waiting job holding more references than an answer may name answers unsettled, and holds the cutoff back', async () => {
  const store = server.store as FileJobStore;
  const directory = temporalJobDirectory(server.environment.client);
  const folder = temporaryFolder();
  /** A prompt naming `count` references (nothing is stored under them). */
  const naming = (count: number) =>
    Array.from(
      { length: count },
      (_, index) => `sha256:${index.toString(16).padStart(64, '0')}`,
    ).join(' ');
  const start = (prompt: string) =>
    startTestJob(
      server,
      jobInput({
        model: scriptedModel(folder, [{ stopReason: 'stop', content: [text('noted')] }]),
        workspace: folder,
        prompt,
        keepOpenMs: 60_000,
      }),
    );
  const within = await start(naming(HELD_REFERENCES_LIMIT - 10));
  const beyond = await start(naming(HELD_REFERENCES_LIMIT + 1));
  await waitUntilSettled(directory, within);
  await waitForPhase(beyond, 'waiting');
  // Its status stored `waiting` once its progress was flushed: a moment on, it would be settled.
  const storedPhase = async () =>
    ((await store.getRecord(JOB_STATUS_RECORD, beyond.workflowId)) as { phase?: string })?.phase;
  for (let attempt = 0; attempt < 100 && (await storedPhase()) !== 'waiting'; attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(await storedPhase()).toBe('waiting');
  await new Promise((resolve) => setTimeout(resolve, 1000));
  expect(await heldBy(directory, beyond)).toEqual({ settled: false, refs: [] });
  const control = await heldBy(directory, within);
  expect(control?.refs.length).toBeGreaterThan(HELD_REFERENCES_LIMIT - 10);

  const report = await pruneStore({ store, directory, olderThanMs: DAY_MS });
  expect(report.settledJobs).toBe(1);
  expect(report.cutoffHeldBy).toBe(beyond.workflowId);
  await Promise.all([within.handle.cancel(), beyond.handle.cancel()]);
}, 120_000);

test('a job at work, and a workflow no worker answers for, hold the cutoff back to their first start: their state holds references the store does not', async () => {
  const store = server.store as FileJobStore;
  const directory = temporalJobDirectory(server.environment.client, 1000);
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [
    { stopReason: 'stop', content: [text('a slow answer')], delayMs: 8000 },
  ]);
  const working = await startTestJob(server, jobInput({ model, workspace: folder, prompt: 'go' }));
  await waitForPhase(working, 'model');
  const unanswered = await server.environment.client.workflow.start('billingRun', {
    taskQueue: uniqueName('no-worker'),
    workflowId: uniqueName('billing'),
  });
  const junk = await store.putObject({ note: 'put while the job works, referred to by nothing' });
  const starts = await Promise.all(
    [working.handle, unanswered].map(async (handle) => (await handle.describe()).startTime),
  );

  const report = await pruneStore({
    store,
    directory,
    olderThanMs: DAY_MS,
    now: Date.now() + 3 * 3_600_000,
    apply: true,
  });
  expect(report.settledJobs).toBe(0);
  expect(report.cutoffHeldBy).toBe(
    starts[0] !== undefined && starts[1] !== undefined && starts[0] <= starts[1]
      ? working.workflowId
      : unanswered.workflowId,
  );
  expect(report.objectCutoffMs).toBe(
    Math.min(...starts.map((start) => start.getTime())) - DEFAULT_GRACE_MS,
  );
  expect(await store.getObject(junk)).toEqual({
    note: 'put while the job works, referred to by nothing',
  });
  await unanswered.terminate();
  await working.result();
  expect(JSON.stringify(await working.transcript())).toContain('a slow answer');
}, 120_000);

test('jobs Temporal does not know are deleted once their stored status says they ended before the threshold, unfinished ones only when asked; what a new object names is kept', async () => {
  const store = server.store as FileJobStore;
  const directory = temporalJobDirectory(server.environment.client);
  const ended = `never-in-temporal-ended-${Date.now()}`;
  const unfinished = `never-in-temporal-unfinished-${Date.now()}`;
  const endedRef = await store.putObject({ note: `events of ${ended}` });
  await store.appendEvents(ended, [{ seq: 1, event: { type: 'agent_end', ref: endedRef } }]);
  await store.putRecord(JOB_STATUS_RECORD, ended, {
    phase: 'done',
    transcript: { head: null, count: 0 },
  });
  await store.putRecord(JOB_STATUS_RECORD, unfinished, { phase: 'model' });
  const oldMessage = await store.putObject({ role: 'user', content: 'said long ago' });
  ageStore(store, 3 * DAY_MS);
  // A new transcript node naming that old message, which no job stores a status for yet.
  await store.putObject({ prev: null, start: 0, entries: [{ ref: oldMessage }] });

  const options = { store, directory, olderThanMs: DAY_MS, apply: true };
  const report = await pruneStore(options);
  expect(report.deletedJobs).toContain(ended);
  expect(report.deletedJobs).not.toContain(unfinished);
  expect(report.unfinishedUnknownJobs).toContain(unfinished);
  expect(await store.readEvents(ended)).toEqual([]);
  expect(await store.getRecord(JOB_STATUS_RECORD, unfinished)).toEqual({ phase: 'model' });
  // The unfinished job may run where Temporal here cannot see it: no object goes meanwhile.
  expect(report.objectCutoffMs).toBeUndefined();
  expect(report.objectsKeptBecause).toMatch(/never stored an ending, and may run on another/);
  expect(await store.getObject(endedRef)).toEqual({ note: `events of ${ended}` });

  const forgetting = await pruneStore({ ...options, forgetUnfinished: true });
  expect(forgetting.deletedJobs).toContain(unfinished);
  expect(await store.getRecord(JOB_STATUS_RECORD, unfinished)).toBeUndefined();
  await expectMissing(store, endedRef);
  expect(await store.getObject(oldMessage)).toEqual({ role: 'user', content: 'said long ago' });
}, 60_000);

test('a job Temporal does not know that stored its status within a day stops the prune before it deletes anything: the wrong namespace', async () => {
  const store = server.store as FileJobStore;
  const directory = temporalJobDirectory(server.environment.client);
  const elsewhere = `running-on-another-namespace-${Date.now()}`;
  const old = await finishedJob('gamma', (input) => startTestJob(server, input));
  await store.putRecord(JOB_STATUS_RECORD, elsewhere, { phase: 'model' });
  try {
    await expect(
      pruneStore({ store, directory, olderThanMs: 1, now: Date.now() + 60_000, apply: true }),
    ).rejects.toThrow(
      new RegExp(
        `Temporal does not know job ${elsewhere}, whose status was stored \\d+ min ago, sooner than any namespace's retention: this is not the Temporal namespace its workers use`,
      ),
    );
    expect(await old.allEvents()).not.toHaveLength(0);
    expect(await store.getRecord(JOB_STATUS_RECORD, old.workflowId)).toBeDefined();
  } finally {
    await store.maintenance().deleteRecord(JOB_STATUS_RECORD, elsewhere);
  }
}, 60_000);
