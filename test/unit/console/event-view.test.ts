/** What the console's pages get of an event: repeated content left out, long strings cut. */
import { eventView, MAX_TEXT_LENGTH } from '../../../src/console/event-view.js';
import { matchPath } from '../../../src/console/routes/route.js';
import type { SequencedEvent } from '../../../src/workflows/job-types.js';

const usage = {
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

test('a long tool output is cut at the limit, saying how much was left out', () => {
  const long = 'x'.repeat(MAX_TEXT_LENGTH + 5);
  const view = eventView({
    type: 'tool_execution_end',
    seq: 7,
    toolCallId: 'c1',
    toolName: 'bash',
    isError: false,
    result: { content: [{ type: 'text', text: long }], details: undefined },
  });
  const text = (view.result as { content: { text: string }[] }).content[0]?.text ?? '';
  expect(text).toBe(`${'x'.repeat(MAX_TEXT_LENGTH)}… (5 more characters)`);
  expect(view).toMatchObject({ type: 'tool_execution_end', seq: 7, toolCallId: 'c1' });
});

test('agent_end and turn_end come without the messages that other events carried', () => {
  const message = {
    role: 'assistant',
    content: [{ type: 'text', text: 'hi' }],
    stopReason: 'stop',
    usage,
  };
  const end = eventView({ type: 'agent_end', seq: 9, messages: [message] } as SequencedEvent);
  expect(end).toEqual({ type: 'agent_end', seq: 9, messageCount: 1 });
  const turn = eventView({
    type: 'turn_end',
    seq: 8,
    message,
    toolResults: [],
  } as unknown as SequencedEvent);
  expect(turn).toEqual({ type: 'turn_end', seq: 8, toolResultCount: 0 });
});

test('an event type the console does not know is passed whole', () => {
  const event = { type: 'approval_requested', seq: 3, toolCallId: 'c2', reason: 'risky' };
  expect(eventView(event as unknown as SequencedEvent)).toEqual(event);
});

test('route paths match segment by segment and decode their parameters', () => {
  expect(matchPath('/api/jobs/:id/events', '/api/jobs/job%2F1/events')).toEqual({ id: 'job/1' });
  expect(matchPath('/api/jobs/:id', '/api/jobs/')).toBeUndefined();
  expect(matchPath('/api/jobs/:id', '/api/jobs/a/b')).toBeUndefined();
  expect(matchPath('/api/jobs/:id', '/api/jobs/%E0%A4%A')).toBeUndefined();
  expect(matchPath('/api/jobs', '/api/jobs')).toEqual({});
});
