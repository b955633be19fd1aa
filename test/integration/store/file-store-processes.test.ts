import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { FileJobStore, objectRef } from '../../../src/store/index.js';

const run = promisify(execFile);
const WRITER = fileURLToPath(new URL('./file-store-writer.mjs', import.meta.url));
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
