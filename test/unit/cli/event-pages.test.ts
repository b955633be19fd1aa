import { passEventPages } from '../../../src/cli/event-pages.js';
import type { SequencedEvent } from '../../../src/workflows/job-types.js';

/** `dar events` reads a job's events page by page; a read tried again prints nothing twice. */
const events = Array.from(
  { length: 10 },
  (_, index) => ({ type: 'turn_start', seq: index + 1 }) as unknown as SequencedEvent,
);

/** Pages of three events after `afterSeq`; the call numbered `failOn` throws once. */
function pages(failOn?: number) {
  let calls = 0;
  let failed = false;
  return {
    calls: () => calls,
    readPage: async (afterSeq: number) => {
      calls += 1;
      if (calls === failOn && !failed) {
        failed = true;
        throw new Error('no worker answered');
      }
      return events.filter((event) => event.seq > afterSeq).slice(0, 3);
    },
  };
}

test('each page is passed on as it is read, from the cursor on, until a page is empty', async () => {
  const source = pages();
  const seen: number[] = [];
  let callsAtFirst = 0;
  const cursor = { seq: 2 };
  await passEventPages(source.readPage, cursor, (event) => {
    if (seen.length === 0) callsAtFirst = source.calls();
    seen.push(event.seq);
  });
  expect(seen).toEqual([3, 4, 5, 6, 7, 8, 9, 10]);
  expect(callsAtFirst).toBe(1);
  expect(cursor.seq).toBe(10);
});

test('a read tried again after a failure part way goes on from the cursor: no event twice, none lost', async () => {
  const source = pages(3);
  const seen: number[] = [];
  const cursor = { seq: 0 };
  const pass = () => passEventPages(source.readPage, cursor, (event) => seen.push(event.seq));
  await expect(pass()).rejects.toThrow('no worker answered');
  expect(seen).toEqual([1, 2, 3, 4, 5, 6]);
  await pass();
  expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
});

test('with stopAtEnd it stops after the first agent_end; an aborted signal reads no further page', async () => {
  const withEnd = events.map((event) =>
    event.seq === 4 ? ({ ...event, type: 'agent_end' } as SequencedEvent) : event,
  );
  const seen: number[] = [];
  const ended = await passEventPages(
    async (afterSeq) => withEnd.filter((event) => event.seq > afterSeq).slice(0, 3),
    { seq: 0 },
    (event) => seen.push(event.seq),
    { stopAtEnd: true },
  );
  expect(ended).toBe(true);
  expect(seen).toEqual([1, 2, 3, 4]);

  const source = pages();
  const closed = new AbortController();
  await passEventPages(source.readPage, { seq: 0 }, () => closed.abort(), {
    signal: closed.signal,
  });
  expect(source.calls()).toBe(1);
});
