/**
 * What a `DurableAgent` refuses before anything reaches a job: Pi's hooks (they would be
 * skipped silently), images and non-user messages (a job takes text), a prompt while a run is
 * under way; and a prompt without a model fails as Pi's runs fail: a failed assistant message,
 * `agent_end`, `state.errorMessage`.
 */
import { DurableAgent } from '../../../src/agent/index.js';
import type { AgentEvent } from '../../../src/core/index.js';

test("Pi's hooks given as options are refused, by name", () => {
  const beforeToolCall = () => Promise.resolve(undefined);
  expect(() => new DurableAgent({ beforeToolCall } as never)).toThrow(
    'A durable agent does not take beforeToolCall',
  );
  // Transport options are the worker's business: ignored, not refused.
  expect(() => new DurableAgent({ streamFn: () => undefined } as never)).not.toThrow();
});

test('abortWaitMs must be a number of milliseconds, 0 or more', () => {
  for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY, '5s']) {
    expect(() => new DurableAgent({ abortWaitMs: bad as never })).toThrow(
      `abortWaitMs must be a number of milliseconds, 0 or more, not ${String(bad)}`,
    );
  }
  expect(() => new DurableAgent({ abortWaitMs: 0 })).not.toThrow();
});

test('images, several messages at once and messages of other roles are refused before anything is sent', async () => {
  const agent = new DurableAgent({ initialState: { model: 'scripted:/nowhere.json' } });
  const image = { type: 'image' as const, data: 'AAAA', mimeType: 'image/png' };
  await expect(agent.prompt('look', [image])).rejects.toThrow('text prompts only');
  await expect(
    agent.prompt({ role: 'user', content: [{ type: 'text', text: 'a' }, image], timestamp: 1 }),
  ).rejects.toThrow('text prompts only');
  await expect(
    agent.prompt([
      { role: 'user', content: 'one', timestamp: 1 },
      { role: 'user', content: 'two', timestamp: 2 },
    ]),
  ).rejects.toThrow('starts from one user message, not 2');
  expect(() =>
    agent.steer({
      role: 'toolResult',
      toolCallId: 'x',
      toolName: 'ls',
      content: [],
      isError: false,
      timestamp: 1,
    }),
  ).toThrow('user messages only, not a message of role toolResult');
  expect(agent.hasQueuedMessages()).toBe(false);
  agent.steer({ role: 'user', content: [{ type: 'text', text: 'held' }], timestamp: 1 });
  expect(agent.hasQueuedMessages()).toBe(true);
  agent.clearAllQueues();
  expect(agent.hasQueuedMessages()).toBe(false);
});

test('a prompt without a model ends as a failed run, as Pi reports one, without connecting', async () => {
  const agent = new DurableAgent();
  const events: AgentEvent[] = [];
  agent.subscribe((event) => {
    events.push(event);
  });
  await agent.prompt('hello');
  expect(events.map((event) => event.type)).toEqual([
    'message_start',
    'message_end',
    'turn_end',
    'agent_end',
  ]);
  expect(agent.state.errorMessage).toContain('No model');
  expect(agent.state.isStreaming).toBe(false);
  const last = agent.state.messages.at(-1);
  expect(last?.role === 'assistant' && last.stopReason).toBe('error');
  await expect(agent.continue()).rejects.toThrow('Cannot continue from message role: assistant');
  await agent.close();
});
