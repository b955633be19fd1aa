import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { statSync, utimesSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { FileJobStore, objectRef } from '../../../src/store/index.js';
import { filesUnder, temporaryFiles } from './store-files.js';

const run = promisify(execFile);
const WRITER = fileURLToPath(new URL('./file-store-writer.mjs', import.meta.url));
const CRASH_WRITER = fileURLToPath(new URL('./file-store-crash-writer.mjs', import.meta.url));
/** The built store (`npm test` builds `dist/` first). */
const BUILT_STORE = fileURLToPath(new URL('../../../dist/store/index.js', import.meta.url));

let folder: string;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'dar-store-processes-'));
});

afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

interface WriterReport {
  writer: string;
  refs: string[];
  lost: number[];
}

test('two processes writing one embedded store: shared writes land once, each contested seq has one winner (R24)', async () => {
  const startAt = String(Date.now() + 1_500);
  const reports = await Promise.all(
    ['first', 'second'].map(async (writer) => {
      const { stdout } = await run(process.execPath, [
        WRITER,
        BUILT_STORE,
        folder,
        writer,
        startAt,
      ]);
      return JSON.parse(stdout) as WriterReport;
    }),
  );

  const store = await FileJobStore.open({ folder });
  const objects = Array.from({ length: 50 }, (_, index) => ({
    message: index,
    text: 'm'.repeat(500),
  }));
  for (const report of reports) {
    expect(report.refs).toEqual(objects.map((value) => objectRef(value)));
  }
  await expect(store.getObjects(objects.map((value) => objectRef(value)))).resolves.toEqual(
    objects,
  );
  const shared = await store.readEvents('job-shared');
  expect(shared.map((stored) => stored.seq)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));

  const contested = await store.readEvents('job-contested');
  expect(contested).toHaveLength(100);
  const [first, second] = reports as [WriterReport, WriterReport];
  for (const { seq, event } of contested) {
    const winner = (event as { writer: string }).writer;
    const loser = winner === 'first' ? second : first;
    expect(loser.lost).toContain(seq);
    expect((winner === 'first' ? first : second).lost).not.toContain(seq);
  }
  expect(first.lost.length + second.lost.length).toBe(100);
});

test('a writer killed with SIGKILL mid-write leaves only whole events and objects; a retry completes the stream', async () => {
  const child = spawn(process.execPath, [CRASH_WRITER, BUILT_STORE, folder], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await once(child.stdout, 'data');
  await new Promise((resolve) => setTimeout(resolve, 700));
  child.kill('SIGKILL');
  await once(child, 'exit');

  const store = await FileJobStore.open({ folder });
  const written = await store.lastSeq('job-crash');
  expect(written).toBeGreaterThanOrEqual(10);
  // Every event that is there is whole (a torn one would fail to parse), with no hole below
  // the last (a batch is linked in seq order).
  const before = await store.readEvents('job-crash', { limit: written + 1, maxBytes: 100_000_000 });
  expect(before.map((stored) => stored.seq)).toEqual(
    Array.from({ length: written }, (_, index) => index + 1),
  );
  // The retry of the interrupted batch, and of everything before it, completes the stream.
  const event = (seq: number) => ({ type: 'message_update', seq, text: 'x'.repeat(2000) });
  const upTo = Math.ceil(written / 10) * 10 + 10;
  const all = Array.from({ length: upTo }, (_, index) => ({
    seq: index + 1,
    event: event(index + 1),
  }));
  await store.appendEvents('job-crash', all);
  const stored = await store.readEvents('job-crash', { limit: upTo + 1, maxBytes: 100_000_000 });
  expect(stored).toEqual(all);
  for (let seq = 1; seq <= written; seq += 10) {
    const ref = objectRef({ message: seq + 9, text: 'y'.repeat(20_000) });
    // An object either is whole or was never renamed into place.
    await store.getObject(ref).catch((error: unknown) => {
      expect((error as Error).name).toBe('ObjectNotFound');
    });
  }
});

test('the temporary files of writers killed mid-write are all the clean-up removes; the stream reads the same after it', async () => {
  // Killed at random moments until one left a temporary file behind (most kills do: a write
  // spends most of its time flushing a temporary file to disk).
  let leftovers: string[] = [];
  for (let kill = 0; kill < 20 && leftovers.length === 0; kill += 1) {
    const child = spawn(process.execPath, [CRASH_WRITER, BUILT_STORE, folder], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await once(child.stdout, 'data');
    await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 400));
    child.kill('SIGKILL');
    await once(child, 'exit');
    leftovers = temporaryFiles(filesUnder(folder));
  }
  expect(leftovers.length).toBeGreaterThan(0);

  const store = await FileJobStore.open({ folder });
  const written = await store.lastSeq('job-crash');
  const events = await store.readEvents('job-crash', { limit: written + 1, maxBytes: 1e9 });
  const before = filesUnder(folder);
  const twoDaysAgo = (Date.now() - 2 * 86_400_000) / 1000;
  for (const path of before) utimesSync(join(folder, path), twoDaysAgo, twoDaysAgo);
  const maintenance = store.maintenance();
  // A burst's file already linked to its events' names frees nothing when it goes.
  const bytes = leftovers
    .map((path) => statSync(join(folder, path)))
    .reduce((total, stats) => total + (stats.nlink === 1 ? stats.size : 0), 0);
  const cutoff = Date.now() - 86_400_000;

  expect(await maintenance.removeAbandonedWrites(cutoff, false)).toEqual({
    count: leftovers.length,
    bytes,
  });
  expect(filesUnder(folder)).toEqual(before);
  expect(await maintenance.removeAbandonedWrites(cutoff, true)).toEqual({
    count: leftovers.length,
    bytes,
  });
  expect(filesUnder(folder)).toEqual(before.filter((path) => !leftovers.includes(path)));
  expect(await store.readEvents('job-crash', { limit: written + 1, maxBytes: 1e9 })).toEqual(
    events,
  );
});
