import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventConflict, FileJobStore, StoreCorruptionError } from '../../../src/store/index.js';
import { BURST_MAX_BYTES } from '../../../src/store/file/event-bursts.js';

const folders: string[] = [];

afterEach(async () => {
  await Promise.all(
    folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })),
  );
});

async function openStore(): Promise<{ store: FileJobStore; root: string }> {
  const folder = await mkdtemp(join(tmpdir(), 'dar-bursts-'));
  folders.push(folder);
  const root = join(folder, 'store');
  return { store: await FileJobStore.open({ folder: root }), root };
}

/** The one seq folder of the store's one job, and its event file names. */
async function eventFiles(root: string): Promise<{ folder: string; names: string[] }> {
  const jobFolder = join(root, 'events', (await readdir(join(root, 'events')))[0] as string);
  const folder = join(jobFolder, (await readdir(jobFolder))[0] as string);
  const names = (await readdir(folder)).filter((name) => !name.startsWith('.')).sort();
  return { folder, names };
}

/** How many distinct files the names are (hard links share an inode). */
async function distinctFiles(folder: string, names: string[]): Promise<number> {
  const inodes = await Promise.all(names.map(async (name) => (await stat(join(folder, name))).ino));
  return new Set(inodes).size;
}

const events = (from: number, count: number, size = 10) =>
  Array.from({ length: count }, (_, index) => ({
    seq: from + index,
    event: { n: from + index, text: 'x'.repeat(size) },
  }));

test('the events of one append are one file under every seq, and each reads back alone', async () => {
  const { store, root } = await openStore();
  await store.appendEvents('job', events(1, 5));
  const { folder, names } = await eventFiles(root);
  expect(names).toHaveLength(5);
  expect(await distinctFiles(folder, names)).toBe(1);
  expect(await store.readEvents('job')).toEqual(events(1, 5));
  expect(await store.readEvents('job', { afterSeq: 3 })).toEqual(events(4, 2));
  expect(await store.readEvents('job', { afterSeq: 1, limit: 2 })).toEqual(events(2, 2));
  expect(await store.lastSeq('job')).toBe(5);
  // A page's byte bound counts each event, not the burst file it shares.
  const one = JSON.stringify(events(1, 1)[0]?.event).length;
  expect(await store.readEvents('job', { maxBytes: one * 2 })).toEqual(events(1, 2));
});

test('a retried append stores nothing new; a different event in a burst conflicts, or replaces only itself', async () => {
  const { store, root } = await openStore();
  await store.appendEvents('job', events(1, 4));
  await store.appendEvents('job', events(1, 6));
  expect(await store.readEvents('job')).toEqual(events(1, 6));
  const changed = { seq: 3, event: { n: 3, text: 'changed' } };
  await expect(store.appendEvents('job', [changed])).rejects.toBeInstanceOf(EventConflict);
  await store.appendEvents('job', [changed], { replace: true });
  const expected = events(1, 6);
  expected[2] = changed;
  expect(await store.readEvents('job')).toEqual(expected);
  const { folder, names } = await eventFiles(root);
  // Seqs 1, 2, 4 still share the first burst; 3 has a file of its own; 5 and 6 the second burst.
  expect(await distinctFiles(folder, names)).toBe(3);
});

test('events over the bound get files of their own; bursts stay under it', async () => {
  const { store, root } = await openStore();
  const big = BURST_MAX_BYTES;
  const written = [...events(1, 2), ...events(3, 1, big), ...events(4, 40, 1000)];
  await store.appendEvents('job', written);
  expect(await store.readEvents('job', { limit: 100, maxBytes: 10_000_000 })).toEqual(written);
  const { folder, names } = await eventFiles(root);
  const sizes = await Promise.all(names.map(async (name) => (await stat(join(folder, name))).size));
  // The big event alone, the first two together, the forty small ones in bursts of up to 16 KiB.
  expect(sizes[2]).toBeLessThan(big + 100);
  expect(Math.max(...sizes.filter((_, index) => index !== 2))).toBeLessThanOrEqual(
    BURST_MAX_BYTES + 100,
  );
  const files = await distinctFiles(folder, names);
  expect(files).toBeGreaterThanOrEqual(1 + 1 + Math.ceil((40 * 1020) / BURST_MAX_BYTES));
  expect(files).toBeLessThan(10);
});

test('a burst file that lacks a seq it is named for is a corruption error', async () => {
  const { store, root } = await openStore();
  await store.appendEvents('job', events(1, 3));
  const { folder, names } = await eventFiles(root);
  const burst = await readFile(join(folder, names[0] as string), 'utf8');
  expect(burst.startsWith('#events 1\n')).toBe(true);
  // Cut to its first two events (a write elsewhere may never do this; a disk may).
  await rm(join(folder, names[2] as string));
  await writeFile(join(folder, names[2] as string), burst.split('\n').slice(0, 3).join('\n'));
  await expect(store.readEvents('job')).rejects.toBeInstanceOf(StoreCorruptionError);
});

test('plain event files (one event each, as earlier releases wrote them) read as before', async () => {
  const { store, root } = await openStore();
  await store.appendEvents('job', events(1, 1));
  const { folder } = await eventFiles(root);
  await writeFile(join(folder, '0000000000000002.json'), JSON.stringify(events(2, 1)[0]?.event));
  expect(await store.readEvents('job')).toEqual(events(1, 2));
  await store.appendEvents('job', events(1, 3));
  expect(await store.readEvents('job')).toEqual(events(1, 3));
});
