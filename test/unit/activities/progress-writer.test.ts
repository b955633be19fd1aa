import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emptyUsage } from '../../../src/core/index.js';
import { progressWriterFor, type ProgressWrite } from '../../../src/activities/progress-writer.js';
import { JOB_STATUS_RECORD } from '../../../src/activities/job-status-record.js';
import { FileJobStore } from '../../../src/store/file/file-job-store.js';
import type { JobStore } from '../../../src/store/job-store.js';
import type { JobPhase } from '../../../src/workflows/job-types.js';

/**
 * A real file store whose event appends are counted and can be held: a held append does not
 * start until released, as a slow disk would keep it.
 */
async function heldStore(): Promise<{
  store: JobStore;
  appends: number[][];
  hold: () => () => void;
}> {
  const inner = await FileJobStore.open({ folder: mkdtempSync(join(tmpdir(), 'dar-writer-')) });
  const appends: number[][] = [];
  let gate: Promise<void> = Promise.resolve();
  const store = Object.create(inner) as JobStore;
  store.appendEvents = async (jobId, events, options) => {
    appends.push(events.map((event) => event.seq));
    await gate;
    return inner.appendEvents(jobId, events, options);
  };
  const hold = () => {
    let release = () => {};
    gate = new Promise((resolve) => (release = resolve));
    return () => {
      gate = Promise.resolve();
      release();
    };
  };
  return { store, appends, hold };
}

function quick(jobId: string, seqs: number[], phase: JobPhase): ProgressWrite {
  return {
    jobId,
    events: seqs.map((seq) => ({ seq, event: { type: 'turn_start', n: seq } })),
    status: {
      phase,
      turns: 1,
      modelCalls: 1,
      lastSeq: seqs.at(-1) ?? 0,
      cancelled: false,
      usage: emptyUsage(),
      continuedAsNew: 0,
    },
    transcript: { pointer: { head: null, count: 0 }, unstored: [] },
  };
}

/** Waits until `appends` (the appends started) has `count` entries. */
async function started(appends: number[][], count: number): Promise<void> {
  for (let tries = 0; tries < 200 && appends.length < count; tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  expect(appends).toHaveLength(count);
}

async function settled(store: JobStore, jobId: string, lastSeq: number): Promise<void> {
  for (let tries = 0; tries < 200; tries += 1) {
    if ((await store.lastSeq(jobId)) >= lastSeq) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`events of ${jobId} up to ${lastSeq} were not stored`);
}

test('quick writes queued behind a slow one go out together, in order, with the newest status', async () => {
  const { store, appends, hold } = await heldStore();
  const writer = progressWriterFor(store);
  const errors: unknown[] = [];
  const release = hold();
  writer.writeSoon(quick('job-a', [1, 2], 'model'), (error) => errors.push(error));
  await started(appends, 1);
  // While the first is held, three more bursts come: they wait as one write.
  writer.writeSoon(quick('job-a', [3], 'tools'), (error) => errors.push(error));
  writer.writeSoon(quick('job-a', [4, 5], 'model'), (error) => errors.push(error));
  writer.writeSoon(quick('job-a', [6], 'tools'), (error) => errors.push(error));
  release();
  await settled(store, 'job-a', 6);

  expect(appends).toEqual([
    [1, 2],
    [3, 4, 5, 6],
  ]);
  const events = await store.readEvents('job-a');
  expect(events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6]);
  // The newest status follows within a second (the pacing holds it back that long at most).
  const newest = async () =>
    (await store.getRecord(JOB_STATUS_RECORD, 'job-a')) as { phase: string; lastSeq: number };
  for (let tries = 0; tries < 60 && (await newest()).lastSeq < 6; tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(await newest()).toMatchObject({ phase: 'tools', lastSeq: 6 });
  expect(errors).toEqual([]);
});

test('a durable write keeps its place: later quick writes do not join one queued before it', async () => {
  const { store, appends, hold } = await heldStore();
  const writer = progressWriterFor(store);
  const release = hold();
  writer.writeSoon(quick('job-b', [1], 'model'), () => undefined);
  await started(appends, 1);
  writer.writeSoon(quick('job-b', [2], 'model'), () => undefined);
  const durable = writer.write(quick('job-b', [1, 2, 3], 'tools'));
  writer.writeSoon(quick('job-b', [4], 'tools'), () => undefined);
  release();
  await durable;
  await settled(store, 'job-b', 4);

  // The durable write repeats 1-3: the quick write of 2, not started yet, is left to it, and 1,
  // stored by the first quick write, is not written again; 4 comes after it.
  expect(appends).toEqual([[1], [2, 3], [4]]);
});

test("a job's last write takes its last activation's quick write with it: one write, not two", async () => {
  const { store, appends } = await heldStore();
  const writer = progressWriterFor(store);
  const errors: unknown[] = [];
  // The sink's write of an activation, then the durable write that activation asked for.
  writer.writeSoon(quick('job-h', [1, 2], 'model'), (error) => errors.push(error));
  await writer.write(quick('job-h', [1, 2, 3], 'done'));

  expect(appends).toEqual([[1, 2, 3]]);
  expect(await store.lastSeq('job-h')).toBe(3);
  expect(await store.getRecord(JOB_STATUS_RECORD, 'job-h')).toMatchObject({ phase: 'done' });
  // Nothing else is written later.
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(appends).toEqual([[1, 2, 3]]);
  expect(errors).toEqual([]);
});

test("quick writes store the job's status without asking for it to be durable; the durable write asks", async () => {
  const { store } = await heldStore();
  const statuses: { phase: unknown; durable: boolean | undefined }[] = [];
  const putRecord = store.putRecord.bind(store);
  store.putRecord = async (namespace, key, value, options) => {
    statuses.push({ phase: (value as { phase?: unknown }).phase, durable: options?.durable });
    return putRecord(namespace, key, value, options);
  };
  const writer = progressWriterFor(store);
  writer.writeSoon(quick('job-d', [1], 'model'), () => undefined);
  await settled(store, 'job-d', 1);
  await writer.write(quick('job-d', [1, 2], 'done'));
  expect(statuses).toEqual([
    { phase: 'model', durable: false },
    { phase: 'done', durable: true },
  ]);
  expect(await store.getRecord(JOB_STATUS_RECORD, 'job-d')).toMatchObject({ phase: 'done' });
});

test('a quick write queued behind a slow one is skipped when a durable write repeats it', async () => {
  const { store, appends, hold } = await heldStore();
  const writer = progressWriterFor(store);
  const release = hold();
  writer.writeSoon(quick('job-j', [1], 'model'), () => undefined);
  await started(appends, 1);
  writer.writeSoon(quick('job-j', [2], 'model'), () => undefined);
  // Handed to the queue (the event loop turned), waiting for the held write.
  await new Promise((resolve) => setImmediate(resolve));
  const durable = writer.write(quick('job-j', [1, 2, 3], 'tools'));
  release();
  await durable;

  expect(appends).toEqual([[1], [2, 3]]);
  expect(await store.lastSeq('job-j')).toBe(3);
});

test('a quick write with events the durable write does not hold still goes first', async () => {
  const { store, appends } = await heldStore();
  const writer = progressWriterFor(store);
  writer.writeSoon(quick('job-i', [1, 2, 3], 'model'), () => undefined);
  await writer.write(quick('job-i', [1, 2], 'tools'));

  // The quick write (1-3) first; the durable one then finds 1 and 2 stored by it.
  expect(appends).toEqual([[1, 2, 3]]);
  expect(await store.lastSeq('job-i')).toBe(3);
});

test('bursts that come before the first write starts go out with it', async () => {
  const { store, appends } = await heldStore();
  const writer = progressWriterFor(store);
  writer.writeSoon(quick('job-e', [1], 'model'), () => undefined);
  writer.writeSoon(quick('job-e', [2], 'tools'), () => undefined);
  await settled(store, 'job-e', 2);

  expect(appends).toEqual([[1, 2]]);
});

test('jobs are written side by side: one job waiting does not hold another', async () => {
  const { store, appends, hold } = await heldStore();
  const writer = progressWriterFor(store);
  const release = hold();
  writer.writeSoon(quick('job-c', [1], 'model'), () => undefined);
  writer.writeSoon(quick('job-d', [1], 'model'), () => undefined);
  await started(appends, 2);
  writer.writeSoon(quick('job-c', [2], 'model'), () => undefined);
  writer.writeSoon(quick('job-d', [2], 'model'), () => undefined);
  release();
  await settled(store, 'job-c', 2);
  await settled(store, 'job-d', 2);

  expect(appends).toEqual([[1], [1], [2], [2]]);
});

test('a durable write stores what quick writes did not, and replaces what they stored differently', async () => {
  const { store, appends } = await heldStore();
  const writer = progressWriterFor(store);
  writer.writeSoon(quick('job-f', [1, 2], 'model'), () => undefined);
  await settled(store, 'job-f', 2);
  // Seq 2 now says something else (a workflow task that ran again decided otherwise).
  const durable = quick('job-f', [1, 2, 3], 'tools');
  durable.events[1] = { seq: 2, event: { type: 'turn_end', n: 2 } };
  await writer.write(durable);

  expect(appends).toEqual([
    [1, 2],
    [2, 3],
  ]);
  expect((await store.readEvents('job-f')).map((stored) => stored.event)).toEqual([
    { type: 'turn_start', n: 1 },
    { type: 'turn_end', n: 2 },
    { type: 'turn_start', n: 3 },
  ]);
  // Remembered no longer: a second durable write of the same events compares them in the store.
  await writer.write(quick('job-f', [1], 'tools'));
  expect(appends.at(-1)).toEqual([1]);
});

test('a durable write of events this process did not write quickly writes them all', async () => {
  const { store, appends } = await heldStore();
  // Stored by another worker (or before this one started).
  await store.appendEvents('job-g', [{ seq: 1, event: { type: 'turn_start', n: 1 } }]);
  await progressWriterFor(store).write(quick('job-g', [1, 2], 'tools'));

  expect(appends).toEqual([[1], [1, 2]]);
  expect(await store.lastSeq('job-g')).toBe(2);
});

test('a status held back by the pacing does not take back a job another worker wrote done', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'dar-writer-'));
  // Two worker processes: two stores on one folder, each with its own writer.
  const first = await FileJobStore.open({ folder });
  const second = await FileJobStore.open({ folder });
  const firstWriter = progressWriterFor(first);
  const errors: unknown[] = [];
  firstWriter.writeSoon(quick('job-moved', [1], 'model'), (error) => errors.push(error));
  await settled(first, 'job-moved', 1);
  // Within the pacing interval, same phase: this status is held back for up to a second.
  firstWriter.writeSoon(quick('job-moved', [1, 2], 'tools'), (error) => errors.push(error));
  await settled(first, 'job-moved', 2);
  expect(await first.getRecord(JOB_STATUS_RECORD, 'job-moved')).toMatchObject({ lastSeq: 1 });
  // Meanwhile the job went on, and ended, on the other worker.
  await progressWriterFor(second).write(quick('job-moved', [1, 2, 3, 4], 'done'));
  // The held status's timer fires on the first worker: the stored status stays done.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect(errors).toEqual([]);
  expect(await second.getRecord(JOB_STATUS_RECORD, 'job-moved')).toMatchObject({
    phase: 'done',
    lastSeq: 4,
  });
  await first.close();
  await second.close();
});

test('a held status is still written when nothing newer is stored', async () => {
  const { store } = await heldStore();
  const writer = progressWriterFor(store);
  writer.writeSoon(quick('job-paced', [1], 'model'), () => undefined);
  await settled(store, 'job-paced', 1);
  writer.writeSoon(quick('job-paced', [1, 2], 'tools'), () => undefined);
  await settled(store, 'job-paced', 2);
  expect(await store.getRecord(JOB_STATUS_RECORD, 'job-paced')).toMatchObject({ lastSeq: 1 });
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect(await store.getRecord(JOB_STATUS_RECORD, 'job-paced')).toMatchObject({
    phase: 'tools',
    lastSeq: 2,
  });
});
