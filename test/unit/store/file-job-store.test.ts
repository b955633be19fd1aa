import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileJobStore, StoreCorruptionError, type ObjectRef } from '../../../src/store/index.js';
import { describeJobStoreContract } from '../../support/job-store-contract.js';

const folders: string[] = [];
let current = '';

afterEach(async () => {
  await Promise.all(
    folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })),
  );
});

function objectPath(folder: string, ref: ObjectRef): string {
  const hex = ref.slice('sha256:'.length);
  return join(folder, 'objects', hex.slice(0, 2), `${hex}.json`);
}

describe('embedded (file) job store', () => {
  describeJobStoreContract({
    async open() {
      current = await mkdtemp(join(tmpdir(), 'dar-store-'));
      folders.push(current);
      return FileJobStore.open({
        folder: join(current, 'store'),
        follow: { intervalMs: 50, gapWaitMs: 500 },
      });
    },
    async openAnother() {
      return FileJobStore.open({
        folder: join(current, 'store'),
        follow: { intervalMs: 50, gapWaitMs: 500 },
      });
    },
    async corruptObject(ref) {
      await writeFile(objectPath(join(current, 'store'), ref), '{"amount":1000}');
    },
  });
});

describe('embedded (file) job store on disk', () => {
  test('temporary files left by a crashed writer are not events, objects or records', async () => {
    current = await mkdtemp(join(tmpdir(), 'dar-store-'));
    folders.push(current);
    const root = join(current, 'store');
    const store = await FileJobStore.open({ folder: root });
    await store.appendEvents('job-a', [{ seq: 1, event: { n: 1 } }]);
    const ref = await store.putObject({ kept: true });
    const jobFolder = join(root, 'events', (await readdir(join(root, 'events')))[0] as string);
    const seqFolder = join(jobFolder, (await readdir(jobFolder))[0] as string);
    // What a writer killed between writing and linking leaves behind.
    await writeFile(join(seqFolder, '.1234-abcdef.tmp'), '{"half":');
    await writeFile(join(seqFolder, '.1234-abcdeg.tmp'), '{"n":2}');
    expect(await store.readEvents('job-a')).toEqual([{ seq: 1, event: { n: 1 } }]);
    expect(await store.lastSeq('job-a')).toBe(1);
    await store.appendEvents('job-a', [{ seq: 2, event: { n: 2 } }]);
    expect(await store.readEvents('job-a', { afterSeq: 1 })).toEqual([{ seq: 2, event: { n: 2 } }]);
    expect(await store.getObject(ref)).toEqual({ kept: true });
  });

  test('an object file cut short is a corruption error', async () => {
    current = await mkdtemp(join(tmpdir(), 'dar-store-'));
    folders.push(current);
    const root = join(current, 'store');
    const store = await FileJobStore.open({ folder: root });
    const ref = await store.putObject({ text: 'a long enough message' });
    await writeFile(objectPath(root, ref), '{"text":"a long');
    await expect(store.getObject(ref)).rejects.toBeInstanceOf(StoreCorruptionError);
  });

  test('an empty record file (a record not flushed before a power loss) reads as no record; a cut one is corrupt', async () => {
    current = await mkdtemp(join(tmpdir(), 'dar-store-'));
    folders.push(current);
    const root = join(current, 'store');
    const store = await FileJobStore.open({ folder: root });
    await store.putRecord('job-status', 'job-1', { phase: 'model' }, { durable: false });
    const namespaceFolder = join(
      root,
      'records',
      (await readdir(join(root, 'records')))[0] as string,
    );
    const recordFile = join(namespaceFolder, (await readdir(namespaceFolder))[0] as string);
    await writeFile(recordFile, '');
    expect(await store.getRecord('job-status', 'job-1')).toBeUndefined();
    await writeFile(recordFile, '{"namespace":"job-status","key":"job-1","value":{"pha');
    await expect(store.getRecord('job-status', 'job-1')).rejects.toBeInstanceOf(
      StoreCorruptionError,
    );
  });

  test("folders removed behind the store's back are made again on the next write", async () => {
    current = await mkdtemp(join(tmpdir(), 'dar-store-'));
    folders.push(current);
    const root = join(current, 'store');
    const store = await FileJobStore.open({ folder: root });
    // The store remembers the folders it made: the first writes make them ...
    await store.putObject({ n: 1 });
    await store.putRecord('notes', 'a', { n: 1 });
    await store.appendEvents('job-a', [{ seq: 1, event: { n: 1 } }]);
    // ... and a hand clean-up removes them all while the store is open.
    await rm(root, { recursive: true });

    const ref = await store.putObject({ n: 2 });
    await store.putRecord('notes', 'a', { n: 2 });
    await store.appendEvents('job-a', [{ seq: 2, event: { n: 2 } }]);
    expect(await store.getObject(ref)).toEqual({ n: 2 });
    expect(await store.getRecord('notes', 'a')).toEqual({ n: 2 });
    expect(await store.readEvents('job-a')).toEqual([{ seq: 2, event: { n: 2 } }]);
  });
});
