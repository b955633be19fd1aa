/**
 * The embedded store's clean-up operations (`StoreMaintenance`) on real files: a put of a stored
 * object refreshes its time, removal goes only by that time, and neither a writer nor a reader
 * in another process is harmed by a removal running beside it.
 */
import { execFile } from 'node:child_process';
import { renameSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { FileJobStore } from '../../../src/store/file/file-job-store.js';
import { writeTemporaryFile } from '../../../src/store/file/file-writes.js';
import { ObjectNotFound } from '../../../src/store/store-errors.js';
import type { ObjectRef } from '../../../src/store/references.js';
import type { StoreMaintenance } from '../../../src/store/store-maintenance.js';
import { temporaryFolder } from '../../support/agent-harness.js';
import { filesUnder, temporaryFiles } from './store-files.js';

const BUILT_STORE = fileURLToPath(new URL('../../../dist/store/index.js', import.meta.url));
const TOUCHER = fileURLToPath(new URL('./file-store-toucher.mjs', import.meta.url));
const DAY_MS = 86_400_000;

async function openStore(): Promise<{ store: FileJobStore; maintenance: StoreMaintenance }> {
  const store = await FileJobStore.open({
    folder: temporaryFolder('dar-prune-'),
    flushWrites: false,
  });
  return { store, maintenance: store.maintenance() };
}

function objectPath(store: FileJobStore, ref: ObjectRef): string {
  const hex = ref.slice('sha256:'.length);
  return join(store.folder, 'objects', hex.slice(0, 2), `${hex}.json`);
}

function age(path: string, ageMs: number): void {
  const seconds = (Date.now() - ageMs) / 1000;
  utimesSync(path, seconds, seconds);
}

async function listed(maintenance: StoreMaintenance, cutoffMs: number): Promise<ObjectRef[]> {
  const refs: ObjectRef[] = [];
  for await (const page of maintenance.listObjectsPutBefore(cutoffMs)) {
    refs.push(...page.map((object) => object.ref));
  }
  return refs.sort();
}

test('a put of a stored object refreshes its time once it is older than the touch interval', async () => {
  const { store } = await openStore();
  const ref = await store.putObject({ note: 'stored twice' });
  const path = objectPath(store, ref);
  age(path, 5 * 60_000);
  const recent = statSync(path).mtimeMs;
  await store.putObject({ note: 'stored twice' });
  expect(statSync(path).mtimeMs).toBe(recent);

  age(path, 2 * DAY_MS);
  await store.putObject({ note: 'stored twice' });
  expect(statSync(path).mtimeMs).toBeGreaterThan(Date.now() - 60_000);
});

test('objects are listed and removed by their put time only; a removed object can be stored again', async () => {
  const { store, maintenance } = await openStore();
  const [old, fresh] = await store.putObjects([{ note: 'old' }, { note: 'fresh' }]);
  age(objectPath(store, old as ObjectRef), 2 * DAY_MS);
  const oldBytes = statSync(objectPath(store, old as ObjectRef)).size;
  const cutoff = Date.now() - DAY_MS;

  expect(await listed(maintenance, cutoff)).toEqual([old]);
  const since: ObjectRef[] = [];
  for await (const page of maintenance.listObjectsPutSince(cutoff)) {
    since.push(...page.map((object) => object.ref));
  }
  expect(since).toEqual([fresh]);
  const removed = await maintenance.removeObjectsPutBefore(
    [old as ObjectRef, fresh as ObjectRef],
    cutoff,
  );
  expect(removed).toEqual({ count: 1, bytes: oldBytes });
  await expect(store.getObject(old as ObjectRef)).rejects.toBeInstanceOf(ObjectNotFound);
  expect(await store.getObject(fresh as ObjectRef)).toEqual({ note: 'fresh' });
  expect(await store.putObject({ note: 'old' })).toBe(old);
  expect(await store.getObject(old as ObjectRef)).toEqual({ note: 'old' });
});

test('an object put again between the listing and the removal is kept', async () => {
  const { store, maintenance } = await openStore();
  const ref = await store.putObject({ note: 'in use again' });
  age(objectPath(store, ref), 2 * DAY_MS);
  const cutoff = Date.now() - DAY_MS;
  expect(await listed(maintenance, cutoff)).toEqual([ref]);

  await store.putObject({ note: 'in use again' });
  expect(await maintenance.removeObjectsPutBefore([ref], cutoff)).toEqual({ count: 0, bytes: 0 });
  expect(await store.getObject(ref)).toEqual({ note: 'in use again' });
});

test('an object held aside by a pruner still reads, is stored anew by a put, and is put back by the next listing', async () => {
  const { store, maintenance } = await openStore();
  const [held, replaced] = await store.putObjects([{ note: 'held' }, { note: 'replaced' }]);
  const removing = join(store.folder, 'objects', 'removing');
  mkdirSync(removing, { recursive: true });
  for (const ref of [held, replaced] as ObjectRef[]) {
    age(objectPath(store, ref), 2 * DAY_MS);
    renameSync(objectPath(store, ref), join(removing, `${ref.slice(7)}.json`));
  }
  // A pruner stopped here: readers still find both, and a put stores its object in place.
  expect(await store.getObject(held as ObjectRef)).toEqual({ note: 'held' });
  await store.putObject({ note: 'replaced' });
  expect(statSync(objectPath(store, replaced as ObjectRef)).mtimeMs).toBeGreaterThan(
    Date.now() - 60_000,
  );

  expect(await listed(maintenance, Date.now() - DAY_MS)).toEqual([held]);
  expect(readdirSync(removing)).toEqual([]);
  expect(await store.getObject(held as ObjectRef)).toEqual({ note: 'held' });
  expect(await store.getObject(replaced as ObjectRef)).toEqual({ note: 'replaced' });
});

test('records are listed with their write time and deleted one by one; a job streams go with it alone', async () => {
  const { store, maintenance } = await openStore();
  await store.putRecord('job-status', 'job-a', { phase: 'done' });
  await store.putRecord('job-status', 'job-b', { phase: 'model' });
  await store.putRecord('other', 'job-a', { unrelated: true });
  const keys = [];
  for await (const entry of maintenance.listRecordKeys('job-status')) keys.push(entry);
  expect(keys.map((entry) => entry.key).sort()).toEqual(['job-a', 'job-b']);
  for (const entry of keys) expect(entry.writtenAtMs).toBeGreaterThan(Date.now() - 60_000);

  await maintenance.deleteRecord('job-status', 'job-a');
  await maintenance.deleteRecord('job-status', 'job-a');
  expect(await store.getRecord('job-status', 'job-a')).toBeUndefined();
  expect(await store.getRecord('job-status', 'job-b')).toEqual({ phase: 'model' });
  expect(await store.getRecord('other', 'job-a')).toEqual({ unrelated: true });

  for (const job of ['job-a', 'job-b']) {
    await store.appendEvents(job, [{ seq: 1, event: { job } }]);
    await store.appendLiveEvents(job, [{ delta: job }]);
  }
  await maintenance.deleteJobStreams('job-a');
  expect(await store.lastSeq('job-a')).toBe(0);
  expect(await store.readLiveEvents('job-a')).toEqual([]);
  expect(await store.readEvents('job-b')).toEqual([{ seq: 1, event: { job: 'job-b' } }]);
  expect(await store.readLiveEvents('job-b')).toHaveLength(1);
});

test('a writer in another process putting objects again while they are removed loses none it was told are stored', async () => {
  const { store, maintenance } = await openStore();
  const count = 2000;
  const refs = await store.putObjects(
    Array.from({ length: count }, (_, index) => ({ index, text: 'x'.repeat(200) })),
  );
  for (const ref of refs) age(objectPath(store, ref), 2 * DAY_MS);
  const cutoff = Date.now() - DAY_MS;

  const startAt = Date.now() + 1500;
  const writer = promisify(execFile)(process.execPath, [
    TOUCHER,
    BUILT_STORE,
    store.folder,
    String(count),
    String(startAt),
  ]);
  await new Promise((resolve) => setTimeout(resolve, startAt - Date.now()));
  let removed = 0;
  for (let start = 0; start < refs.length; start += 20) {
    removed += (await maintenance.removeObjectsPutBefore(refs.slice(start, start + 20), cutoff))
      .count;
    await new Promise((resolve) => setImmediate(resolve));
  }
  const { stored } = JSON.parse((await writer).stdout) as { stored: number[] };

  expect(stored).toHaveLength(count / 2);
  expect(removed).toBeGreaterThan(0);
  expect(removed).toBeLessThanOrEqual(count);
  const lost: number[] = [];
  for (const index of stored) {
    try {
      await store.getObject(refs[index] as ObjectRef);
    } catch (error) {
      if (!(error instanceof ObjectNotFound)) throw error;
      lost.push(index);
    }
  }
  expect(lost).toEqual([]);
}, 60_000);

test('temporary files that dead writers left are counted, then removed once older than the cutoff; nothing else is', async () => {
  const { store, maintenance } = await openStore();
  const ref = await store.putObject({ note: 'stored' });
  await store.putRecord('job-status', 'job-a', { phase: 'done' });
  await store.appendEvents('job-a', [{ seq: 1, event: { type: 'agent_start' } }]);
  await store.appendLiveEvents('job-a', [{ delta: 'streamed' }]);
  const stored = filesUnder(store.folder);
  // Where each kind of write makes its temporary file: beside what it writes.
  const folders = ['objects', 'records', 'events', 'live'].map((kind) => {
    const file = stored.find((path) => path.startsWith(`${kind}/`) && path.endsWith('.json'));
    if (file === undefined) throw new Error(`No ${kind} file was written`);
    return join(store.folder, dirname(file));
  });
  const abandoned = await Promise.all(
    folders.map((folder) => writeTemporaryFile(folder, 'x'.repeat(1000), false)),
  );
  for (const path of abandoned) age(path, 2 * DAY_MS);
  const inProgress = await writeTemporaryFile(folders[0] as string, 'being written', false);
  // Not the store's: another program's dot file in its folder stays, however old.
  const foreign = join(folders[1] as string, '.keep');
  writeFileSync(foreign, 'kept');
  age(foreign, 2 * DAY_MS);
  const before = filesUnder(store.folder);
  const cutoff = Date.now() - DAY_MS;

  expect(await maintenance.removeAbandonedWrites(cutoff, false)).toEqual({
    count: 4,
    bytes: 4000,
  });
  expect(filesUnder(store.folder)).toEqual(before);

  expect(await maintenance.removeAbandonedWrites(cutoff, true)).toEqual({ count: 4, bytes: 4000 });
  const removed = abandoned.map((path) => relative(store.folder, path));
  expect(filesUnder(store.folder)).toEqual(before.filter((path) => !removed.includes(path)));
  expect(temporaryFiles(filesUnder(store.folder))).toEqual([relative(store.folder, inProgress)]);
  expect(await maintenance.removeAbandonedWrites(cutoff, true)).toEqual({ count: 0, bytes: 0 });
  expect(await store.getObject(ref)).toEqual({ note: 'stored' });
  expect(await store.getRecord('job-status', 'job-a')).toEqual({ phase: 'done' });
  expect(await store.readEvents('job-a')).toEqual([{ seq: 1, event: { type: 'agent_start' } }]);
});
