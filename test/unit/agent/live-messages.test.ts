/**
 * How the Agent class turns a job's stored events and its live stream into Pi's events: one
 * `message_start` per assistant message whichever side is read first (a stored burst can be read
 * before the live events written ahead of it), a retried call starts its partial over, and live
 * events of a call that has ended are not shown as the next call's.
 */
import { LiveMessages } from '../../../src/agent/live-messages.js';
import type { AgentEvent, AssistantMessage } from '../../../src/core/index.js';
import type { SequencedLiveEvent } from '../../../src/live/live-events.js';

const user = { role: 'user' as const, content: 'hi', timestamp: 1 };

function assistant(text: string): AssistantMessage {
  return {
    role: 'assistant',
    content: text === '' ? [] : [{ type: 'text', text }],
    api: 'x',
    provider: 'x',
    model: 'x',
    usage: {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: 'stop',
    timestamp: 2,
  };
}

let liveSeq = 0;
function start(callIndex: number, attempt = 1): SequencedLiveEvent {
  liveSeq += 1;
  return {
    type: 'message_update',
    callIndex,
    attempt,
    liveSeq,
    assistantMessageEvent: { type: 'start' },
  };
}
function token(callIndex: number, text: string, attempt = 1): SequencedLiveEvent {
  liveSeq += 1;
  return {
    type: 'message_update',
    callIndex,
    attempt,
    liveSeq,
    assistantMessageEvent: { type: 'text_delta', contentIndex: 0, delta: text },
  };
}
function voided(callIndex: number, attempt: number): SequencedLiveEvent {
  liveSeq += 1;
  return { type: 'message_void', callIndex, attempt, liveSeq };
}

/** Feeds stored (`AgentEvent`) and live events in the order given; Pi's events out. */
function feed(inputs: Array<AgentEvent | SequencedLiveEvent>): AgentEvent[] {
  const messages = new LiveMessages(() => assistant(''));
  const out: AgentEvent[] = [];
  for (const input of inputs) {
    out.push(...('liveSeq' in input ? messages.fromLive(input) : messages.fromStored(input)));
  }
  return out;
}

function described(events: AgentEvent[]): string[] {
  return events.map((event) => {
    if (event.type === 'message_update') {
      const block = (event.message as AssistantMessage).content[0];
      return `update:${block?.type === 'text' ? block.text : ''}`;
    }
    if ('message' in event && event.type.startsWith('message_')) {
      return `${event.type}:${event.message.role}`;
    }
    return event.type;
  });
}

const runStart: AgentEvent[] = [
  { type: 'agent_start' },
  { type: 'turn_start' },
  { type: 'message_start', message: user },
  { type: 'message_end', message: user },
];

test('R24: one message_start when the stored start of the answer is read before its live events', () => {
  const answer = assistant('Hello there');
  const events = feed([
    ...runStart,
    { type: 'message_start', message: answer },
    start(0),
    token(0, 'Hello'),
    token(0, ' there'),
    { type: 'message_end', message: answer },
  ]);
  expect(described(events)).toEqual([
    'agent_start',
    'turn_start',
    'message_start:user',
    'message_end:user',
    'message_start:assistant',
    'update:Hello',
    'update:Hello there',
    'message_end:assistant',
  ]);
});

test('R24: a retried model call keeps its one message_start and starts its partial over', () => {
  const answer = assistant('Second');
  const events = feed([
    ...runStart,
    start(0, 1),
    token(0, 'Fir'),
    voided(0, 1),
    start(0, 2),
    token(0, 'Second', 2),
    // A late delta of the dead attempt is not shown.
    token(0, 'st', 1),
    { type: 'message_start', message: answer },
    { type: 'message_end', message: answer },
  ]);
  expect(described(events)).toEqual([
    'agent_start',
    'turn_start',
    'message_start:user',
    'message_end:user',
    'message_start:assistant',
    'update:Fir',
    'update:Second',
    'message_end:assistant',
  ]);
});

test("live events of a call read after its message_end are not shown as the next call's", () => {
  const first = assistant('One');
  const second = assistant('Two');
  const third = assistant('Three');
  const events = feed([
    ...runStart,
    start(0),
    token(0, 'One'),
    { type: 'message_start', message: first },
    { type: 'message_end', message: first },
    { type: 'turn_end', message: first, toolResults: [] },
    { type: 'turn_start' },
    // The second call's whole burst is read before any of its live events.
    { type: 'message_start', message: second },
    { type: 'message_end', message: second },
    { type: 'turn_end', message: second, toolResults: [] },
    { type: 'turn_start' },
    start(1),
    token(1, 'Two'),
    start(2),
    token(2, 'Thr'),
    { type: 'message_start', message: third },
    { type: 'message_end', message: third },
  ]);
  expect(described(events)).toEqual([
    'agent_start',
    'turn_start',
    'message_start:user',
    'message_end:user',
    'message_start:assistant',
    'update:One',
    'message_end:assistant',
    'turn_end',
    'turn_start',
    'message_start:assistant',
    'message_end:assistant',
    'turn_end',
    'turn_start',
    'message_start:assistant',
    'update:Thr',
    'message_end:assistant',
  ]);
});
