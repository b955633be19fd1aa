import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileJobStore } from '../../../src/store/index.js';

let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'dar-store-scale-'));
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

const TURNS = 2000;
const EVENTS_PER_TURN = 10;

test('a 2,000-turn job: 20,000 events page in order, and a late page is as quick as an early one', async () => {
  // Flushing is off only to keep the test short on a shared machine; the layout is the same.
  const store = await FileJobStore.open({ folder, flushWrites: false });
  const total = TURNS * EVENTS_PER_TURN;
  const event = (seq: number) => ({
    type: seq % EVENTS_PER_TURN === 0 ? 'turn_end' : 'message_update',
    seq,
    delta: 'token '.repeat(20),
  });
  // Appended a turn at a time, several turns in flight, as activities of parallel jobs would.
  const turns = Array.from({ length: TURNS }, (_, turn) =>
    Array.from({ length: EVENTS_PER_TURN }, (_, index) => {
      const seq = turn * EVENTS_PER_TURN + index + 1;
      return { seq, event: event(seq) };
    }),
  );
  for (let start = 0; start < TURNS; start += 8) {
    await Promise.all(
      turns.slice(start, start + 8).map((batch) => store.appendEvents('big', batch)),
    );
  }
  expect(await store.lastSeq('big')).toBe(total);

  let afterSeq = 0;
  let read = 0;
  for (;;) {
    const page = await store.readEvents('big', { afterSeq, limit: 1000 });
    if (page.length === 0) break;
    for (const stored of page) {
      read += 1;
      expect(stored.seq).toBe(read);
    }
    afterSeq = page.at(-1)?.seq ?? afterSeq;
  }
  expect(read).toBe(total);

  const timePage = async (after: number) => {
    const started = performance.now();
    const page = await store.readEvents('big', { afterSeq: after, limit: 100 });
    expect(page[0]?.event).toEqual(event(after + 1));
    return performance.now() - started;
  };
  // Loose bounds on a busy machine: a page costs one small folder listing plus its files,
  // wherever it is in the stream.
  const early = await timePage(100);
  const late = await timePage(total - 150);
  expect(late).toBeLessThan(Math.max(250, early * 10));
}, 180_000);
