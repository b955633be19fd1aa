import type { StoredJobStatus } from '../../../src/activities/job-status-record.js';
import { LiveFilter } from '../../../src/client/live-filter.js';
import type { SequencedLiveEvent } from '../../../src/live/live-events.js';
import type { SequencedEvent } from '../../../src/workflows/job-types.js';

const delta = (callIndex: number, liveSeq: number): SequencedLiveEvent => ({
  type: 'message_update',
  turn: callIndex + 1,
  callIndex,
  attempt: 1,
  liveSeq,
  assistantMessageEvent: { type: 'text_delta', contentIndex: 0, delta: 'x' },
});

const toolLine = (turn: number, liveSeq: number): SequencedLiveEvent => ({
  type: 'tool_execution_update',
  turn,
  attempt: 1,
  toolCallId: `call-${turn}`,
  toolName: 'bash',
  liveSeq,
  partialResult: { content: [{ type: 'text', text: 'line\n' }] },
});

const status = (modelCalls: number, phase: StoredJobStatus['phase']) =>
  ({ modelCalls, turns: modelCalls, phase }) as StoredJobStatus;

test('a follower that starts late skips deltas of calls the stored status shows ended', () => {
  const filter = new LiveFilter();
  // Call 1 runs (modelCalls 2, phase model): call 0 ended, call 1 is live.
  expect(filter.isCurrent(delta(0, 1), status(2, 'model'))).toBe(false);
  expect(filter.isCurrent(delta(1, 2), status(2, 'model'))).toBe(true);
  expect(filter.isCurrent(toolLine(2, 4), status(2, 'tools'))).toBe(true);
  expect(filter.isCurrent(toolLine(1, 5), status(2, 'tools'))).toBe(false);
  expect(filter.isCurrent(toolLine(2, 6), status(2, 'done'))).toBe(false);
  // Still: an earlier call's deltas, read after the follower is in call 1.
  expect(filter.isCurrent(delta(0, 7), status(2, 'tools'))).toBe(false);
});

test('the call a follower is in keeps its last deltas when the status runs ahead of the follower', () => {
  const filter = new LiveFilter();
  expect(filter.isCurrent(delta(0, 1), status(1, 'model'))).toBe(true);
  // The answer's end (and the status saying tools) were stored after the follower read the
  // job's events; its last deltas, stored before them, come with the status already ahead.
  expect(filter.isCurrent(delta(0, 2), status(1, 'tools'))).toBe(true);
  expect(filter.isCurrent(delta(0, 3), status(2, 'model'))).toBe(true);
  // Once the follower passes that end on, the call is over for it.
  filter.noteEvent({
    type: 'message_end',
    seq: 6,
    message: { role: 'assistant' },
  } as SequencedEvent);
  expect(filter.isCurrent(delta(0, 4), status(2, 'model'))).toBe(false);
  expect(filter.isCurrent(delta(1, 5), status(2, 'model'))).toBe(true);
});

test('a message_end or tool_execution_end passed on ends that call for the follower, whatever the status says', () => {
  const filter = new LiveFilter();
  const lagging = status(1, 'model');
  expect(filter.isCurrent(delta(0, 1), lagging)).toBe(true);
  expect(filter.isCurrent(toolLine(1, 2), lagging)).toBe(true);
  filter.noteEvent({
    type: 'message_end',
    seq: 5,
    message: { role: 'assistant' },
  } as SequencedEvent);
  filter.noteEvent({
    type: 'tool_execution_end',
    seq: 6,
    toolCallId: 'call-1',
  } as SequencedEvent);
  expect(filter.isCurrent(delta(0, 3), lagging)).toBe(false);
  expect(filter.isCurrent(toolLine(1, 4), lagging)).toBe(false);
  expect(filter.isCurrent(delta(1, 5), lagging)).toBe(true);
});

test('deltas of a call read after its message_end are not live, though the follower saw none of them before', () => {
  const filter = new LiveFilter();
  const lagging = status(2, 'model');
  expect(filter.isCurrent(delta(1, 1), lagging)).toBe(true);
  const assistantEnd = { type: 'message_end', message: { role: 'assistant' } };
  filter.noteEvent({ ...assistantEnd, seq: 5 } as SequencedEvent);
  // Call 2's stored end is read before any of its deltas; the status still says model.
  filter.noteEvent({ ...assistantEnd, seq: 9 } as SequencedEvent);
  expect(filter.isCurrent(delta(2, 2), status(3, 'model'))).toBe(false);
  expect(filter.isCurrent(delta(3, 3), status(4, 'model'))).toBe(true);
});
