import { jest } from '@jest/globals';
import {
  runAgentLoop,
  textOf,
  type AgentLoopConfig,
  type Message,
  type PrepareNextTurnHook,
  type ShouldStopAfterTurnHook,
} from '../../../src/core/index.js';
import { agentHarness } from '../support/harness.js';
import { assistant, text, toolCall, user } from '../support/messages.js';
import { editTool, readTool } from '../support/tools.js';
import { resultsOf, textOfResult } from '../support/transcript.js';

function harnessWith(answers: ReturnType<typeof assistant>[]) {
  return agentHarness({ tools: [readTool], answers });
}

function run(
  harness: ReturnType<typeof harnessWith>,
  config: Partial<AgentLoopConfig>,
  signal?: AbortSignal,
) {
  if (signal) harness.effects.signal = signal;
  return runAgentLoop(
    [user('go')],
    harness.transcript,
    { systemPrompt: 'You are a test.', tools: [readTool], ...config },
    harness.effects,
  );
}

const texts = (messages: Message[]) =>
  messages.map((message) => `${message.role}:${textOf(message)}`);

describe('prepareNextTurn (Pi 0.74+)', () => {
  test('a model and thinking level it returns reach the next model request, not the one before', async () => {
    const harness = harnessWith([
      assistant([toolCall('c1', 'read', { path: 'a' })]),
      assistant([text('done')]),
    ]);
    await run(harness, {
      model: 'scripted:first',
      prepareNextTurn: () => ({ model: 'scripted:second', thinkingLevel: 'high' }),
    });
    const [first, second] = harness.model.requests;
    expect(first).toMatchObject({ model: 'scripted:first' });
    expect(first!.thinkingLevel).toBeUndefined();
    expect(second).toMatchObject({ model: 'scripted:second', thinkingLevel: 'high' });
  });

  test('without a model anywhere the request carries none', async () => {
    const harness = harnessWith([assistant([text('done')])]);
    await run(harness, {});
    expect('model' in harness.model.requests[0]!).toBe(false);
    expect('thinkingLevel' in harness.model.requests[0]!).toBe(false);
  });

  test('a swapped context is what the next calls see; the transcript still gets every message', async () => {
    const harness = harnessWith([
      assistant([toolCall('c1', 'read', { path: 'a' })]),
      assistant([toolCall('c2', 'edit', { path: 'a', edits: [{ oldText: 'x', newText: 'y' }] })]),
      assistant([text('done')]),
    ]);
    let swapped = false;
    await run(harness, {
      prepareNextTurn: ({ context }) => {
        if (swapped) return undefined;
        swapped = true;
        return {
          context: {
            systemPrompt: 'Compacted.',
            messages: [user(`summary of ${context.messages.length} messages`)],
            tools: [readTool, editTool],
          },
        };
      },
    });
    const [, second, third] = harness.model.requests;
    expect(second!.systemPrompt).toBe('Compacted.');
    expect(texts(second!.messages)).toEqual(['user:summary of 3 messages']);
    expect(second!.tools.map((tool) => tool.name)).toEqual(['read', 'edit']);
    // The swapped-in tools are looked up: edit was not in the run's first tool set.
    expect(textOfResult(resultsOf(harness.transcript.messages)[1])).toBe('ok c2');
    expect(texts(third!.messages)).toEqual([
      'user:summary of 3 messages',
      'assistant:',
      'toolResult:ok c2',
    ]);
    expect(harness.transcript.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'toolResult',
      'assistant',
      'toolResult',
      'assistant',
    ]);
  });

  test('it runs after turn_end and before shouldStopAfterTurn, which sees the new context', async () => {
    const calls: string[] = [];
    const harness = harnessWith([assistant([toolCall('c1', 'read', { path: 'a' })])]);
    const prepareNextTurn = jest.fn<PrepareNextTurnHook>(({ newMessages }) => {
      calls.push(`prepare after ${harness.sink.labels().at(-1)} with ${newMessages.length}`);
      return { context: { systemPrompt: 'next', messages: [], tools: [readTool] } };
    });
    const shouldStopAfterTurn = jest.fn<ShouldStopAfterTurnHook>(({ context }) => {
      calls.push(`stop check sees ${context.systemPrompt}`);
      return true;
    });
    await run(harness, { prepareNextTurn, shouldStopAfterTurn });
    expect(calls).toEqual(['prepare after turn_end with 3', 'stop check sees next']);
  });
});

describe('transformContext and convertToLlm (Pi context pipeline)', () => {
  test('transformContext runs first, convertToLlm second, and the transcript is left alone', async () => {
    const harness = harnessWith([assistant([text('done')])]);
    const order: string[] = [];
    await run(harness, {
      transformContext: (messages) => {
        order.push('transform');
        return [user('injected context'), ...messages];
      },
      convertToLlm: (messages) => {
        order.push(`convert ${messages.length}`);
        return messages.filter((message) => textOf(message) !== 'go');
      },
    });
    expect(order).toEqual(['transform', 'convert 2']);
    expect(texts(harness.model.requests[0]!.messages)).toEqual(['user:injected context']);
    expect(texts(harness.transcript.messages)).toEqual(['user:go', 'assistant:done']);
  });
});

describe('hooks receive the run abort signal', () => {
  test('every hook gets the host signal as its last argument', async () => {
    const controller = new AbortController();
    const seen: Record<string, AbortSignal | undefined> = {};
    const harness = harnessWith([
      assistant([toolCall('c1', 'read', { path: 'a' })]),
      assistant([text('done')]),
    ]);
    await run(
      harness,
      {
        beforeToolCall: (_context, signal) => {
          seen.beforeToolCall = signal;
        },
        afterToolCall: (_context, signal) => {
          seen.afterToolCall = signal;
        },
        prepareNextTurn: (_context, signal) => {
          seen.prepareNextTurn = signal;
        },
        shouldStopAfterTurn: (_context, signal) => {
          seen.shouldStopAfterTurn = signal;
          return false;
        },
        transformContext: (messages, signal) => {
          seen.transformContext = signal;
          return messages;
        },
      },
      controller.signal,
    );
    expect(Object.keys(seen).sort()).toEqual([
      'afterToolCall',
      'beforeToolCall',
      'prepareNextTurn',
      'shouldStopAfterTurn',
      'transformContext',
    ]);
    for (const signal of Object.values(seen)) expect(signal).toBe(controller.signal);
  });
});
