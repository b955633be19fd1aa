import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JOB_STATUS_RECORD } from '../../../src/activities/job-status-record.js';
import { openLiveModelCall } from '../../../src/live/live-model-call.js';
import { FileJobStore } from '../../../src/store/file/file-job-store.js';

/** Issue 12, item 5: deltas of a message whose message_end is stored are compacted away. */

let store: FileJobStore;
beforeEach(async () => {
  store = await FileJobStore.open({
    folder: mkdtempSync(join(tmpdir(), 'dar-live-call-')),
    flushWrites: false,
  });
});
afterEach(() => store.close());

const textDelta = (delta: string) => ({ type: 'text_delta', contentIndex: 0, delta, partial: {} });

async function streamCall(callIndex: number, attempt: number, words: string[]): Promise<void> {
  const call = openLiveModelCall(store, 'job', { turn: callIndex + 1, callIndex, attempt }, () => {
    throw new Error('no failure expected');
  });
  call.onStreamEvent({ type: 'start', partial: {} });
  for (const word of words) call.onStreamEvent(textDelta(word));
  call.onStreamEvent({ type: 'done', reason: 'stop', message: {} });
  await call.finish();
}

async function storedStatus(modelCalls: number, phase: string): Promise<void> {
  await store.putRecord(JOB_STATUS_RECORD, 'job', { modelCalls, phase, turns: modelCalls });
}

test('a later call drops the earlier calls deltas once the status shows it started', async () => {
  await storedStatus(1, 'model');
  await streamCall(0, 1, ['a', 'b']);
  expect((await store.readLiveEvents('job')).length).toBeGreaterThan(0);

  // The status still says call 0: nothing may be dropped yet (its message_end may be missing).
  await streamCall(1, 1, ['c']);
  const beforeStatus = await store.readLiveEvents('job');
  expect(
    beforeStatus.some((stored) => (stored.event as { callIndex: number }).callIndex === 0),
  ).toBe(true);

  await storedStatus(3, 'model');
  await streamCall(2, 1, ['d']);
  const left = await store.readLiveEvents('job');
  expect(left.map((stored) => (stored.event as { callIndex: number }).callIndex)).toEqual(
    left.map(() => 2),
  );
  // Pi's shapes without partial; done is not sent.
  expect(
    left.map(
      (stored) => (stored.event as { assistantMessageEvent: unknown }).assistantMessageEvent,
    ),
  ).toEqual([{ type: 'start' }, { type: 'text_delta', contentIndex: 0, delta: 'd' }]);
});

test('a retried attempt first says the earlier attempt is void', async () => {
  await streamCall(0, 1, ['partial']);
  await streamCall(0, 2, ['whole']);
  const events = (await store.readLiveEvents('job')).map(
    (stored) => stored.event as Record<string, unknown>,
  );
  const voidAt = events.findIndex((event) => event.type === 'message_void');
  expect(events[voidAt]).toEqual({ type: 'message_void', turn: 1, callIndex: 0, attempt: 1 });
  expect(events.slice(0, voidAt).every((event) => event.attempt === 1)).toBe(true);
  expect(events.slice(voidAt + 1).every((event) => event.attempt === 2)).toBe(true);
});

test('a store that fails while streaming never fails the call: finish resolves, the failure is reported', async () => {
  const failing = Object.create(store) as FileJobStore;
  failing.appendLiveEvents = () => Promise.reject(new Error('disk full'));
  const failures: unknown[] = [];
  const call = openLiveModelCall(failing, 'job', { turn: 1, callIndex: 0, attempt: 1 }, (error) =>
    failures.push(error),
  );
  expect(() => call.onStreamEvent(textDelta('x'))).not.toThrow();
  await expect(call.finish()).resolves.toBeUndefined();
  expect(failures).toEqual([expect.objectContaining({ message: 'disk full' })]);
  expect(await store.readLiveEvents('job')).toEqual([]);
});

test('a call whose provider streams nothing writes nothing live and reads nothing back', async () => {
  const counted = Object.create(store) as FileJobStore;
  const used: string[] = [];
  counted.appendLiveEvents = (...args) => {
    used.push('appendLiveEvents');
    return store.appendLiveEvents(...args);
  };
  counted.getRecord = (...args) => {
    used.push('getRecord');
    return store.getRecord(...args);
  };
  await storedStatus(2, 'model');
  const call = openLiveModelCall(counted, 'job', { turn: 2, callIndex: 1, attempt: 1 }, () => {
    throw new Error('no failure expected');
  });
  // Pi's own `start` carries nothing: it does not count as streaming.
  call.onStreamEvent({ type: 'start', partial: {} });
  await call.finish();
  expect(used).toEqual([]);
  expect(await store.readLiveEvents('job')).toEqual([]);
});
