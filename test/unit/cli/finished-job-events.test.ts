import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JOB_STATUS_RECORD } from '../../../src/activities/job-status-record.js';
import { passFinishedJobEvents } from '../../../src/cli/finished-job-events.js';
import { EVENT_PAGE_SIZE } from '../../../src/client/stored-job-reads.js';
import type { JobStore } from '../../../src/store/job-store.js';
import { openJobStore } from '../../../src/store/open-job-store.js';
import type { SequencedEvent } from '../../../src/workflows/job-types.js';

/**
 * `dar events` on a finished job reads the store page by page and prints each page as it comes:
 * memory stays bounded however long the job ran, and the first lines show at once. Real file
 * store.
 */
const EVENTS = EVENT_PAGE_SIZE * 3 + 7;
let store: JobStore;

beforeAll(async () => {
  store = await openJobStore({ folder: mkdtempSync(join(tmpdir(), 'dar-finished-events-')) });
  const events = Array.from({ length: EVENTS }, (_, index) => ({
    seq: index + 1,
    event: index === EVENTS - 1 ? { type: 'agent_end_marker' } : { type: 'turn_start' },
  }));
  await store.appendEvents('long-job', events);
  await store.appendEvents('ended-job', [
    { seq: 1, event: { type: 'turn_start' } },
    { seq: 2, event: { type: 'agent_end' } },
    { seq: 3, event: { type: 'turn_start' } },
  ]);
  for (const jobId of ['long-job', 'ended-job']) {
    await store.putRecord(JOB_STATUS_RECORD, jobId, { phase: 'done' });
  }
  await store.appendEvents('running-job', [{ seq: 1, event: { type: 'turn_start' } }]);
  await store.putRecord(JOB_STATUS_RECORD, 'running-job', { phase: 'running' });
});
afterAll(() => store.close());

/** The store, counting the pages read. */
function counting(): { store: JobStore; pagesRead: () => number } {
  let pages = 0;
  const wrapped = Object.create(store) as JobStore;
  wrapped.readEvents = (jobId, options) => {
    pages += 1;
    return store.readEvents(jobId, options);
  };
  return { store: wrapped, pagesRead: () => pages };
}

test('every event after the cursor, in order; the first passed on before the second page is read', async () => {
  const { store: reading, pagesRead } = counting();
  const seen: number[] = [];
  let pagesAtFirst = 0;
  const finished = await passFinishedJobEvents(reading, 'long-job', 2, (event) => {
    if (seen.length === 0) pagesAtFirst = pagesRead();
    seen.push(event.seq);
  });
  expect(finished).toBe(true);
  expect(seen).toEqual(Array.from({ length: EVENTS - 2 }, (_, index) => index + 3));
  expect(pagesAtFirst).toBe(1);
  expect(pagesRead()).toBeGreaterThanOrEqual(4);
});

test('stopAtEnd stops after the first agent_end, as a follower does; an aborted signal reads no further page', async () => {
  const seen: SequencedEvent[] = [];
  await passFinishedJobEvents(store, 'ended-job', 0, (event) => seen.push(event), {
    stopAtEnd: true,
  });
  expect(seen.map((event) => [event.seq, event.type])).toEqual([
    [1, 'turn_start'],
    [2, 'agent_end'],
  ]);

  const { store: reading, pagesRead } = counting();
  const closed = new AbortController();
  let passed = 0;
  await passFinishedJobEvents(
    reading,
    'long-job',
    0,
    () => {
      passed += 1;
      closed.abort();
    },
    { signal: closed.signal },
  );
  expect(pagesRead()).toBe(1);
  expect(passed).toBe(EVENT_PAGE_SIZE);
});

test('a job the store does not say ended passes on nothing: the caller asks Temporal', async () => {
  const seen: SequencedEvent[] = [];
  expect(await passFinishedJobEvents(store, 'running-job', 0, (event) => seen.push(event))).toBe(
    false,
  );
  expect(await passFinishedJobEvents(store, 'never-started', 0, (event) => seen.push(event))).toBe(
    false,
  );
  expect(seen).toEqual([]);
});
