import { jest } from '@jest/globals';
import type {
  AfterToolCallContext,
  AfterToolCallHook,
  AgentEvent,
  ToolExecutionResult,
} from '../../src/core/index.js';
import { agentHarness, type ToolBody } from './support/harness.js';
import { assistant, text, toolCall } from './support/messages.js';
import { readTool } from './support/tools.js';
import { expectEveryToolCallAnswered, resultsOf, textOfResult } from './support/transcript.js';

const original: ToolExecutionResult = {
  content: [text('original content')],
  details: { original: true },
  terminate: true,
};

const returning =
  (result: ToolExecutionResult): ToolBody =>
  async () =>
    structuredClone(result);

function endOf(events: AgentEvent[], id: string) {
  const end = events.find(
    (event) => event.type === 'tool_execution_end' && event.toolCallId === id,
  );
  if (end?.type !== 'tool_execution_end') throw new Error(`no end event for ${id}`);
  return end;
}

async function runOneCall(afterToolCall: AfterToolCallHook, body: ToolBody = returning(original)) {
  const harness = agentHarness({
    tools: [readTool],
    afterToolCall,
    bodies: { read: body },
    answers: [assistant([toolCall('c1', 'read', { path: 'a' })]), assistant([text('done')])],
  });
  await harness.run();
  const end = endOf(harness.sink.events, 'c1');
  const message = resultsOf(harness.transcript.messages)[0]!;
  expectEveryToolCallAnswered(harness.transcript.messages);
  return { harness, end, message };
}

describe('R17: afterToolCall', () => {
  test('R17: overriding content keeps details, terminate and isError', async () => {
    const { end, message } = await runOneCall(() => ({ content: [text('redacted')] }));
    expect(end.result).toEqual({
      content: [text('redacted')],
      details: { original: true },
      terminate: true,
    });
    expect(end.isError).toBe(false);
    expect(message).toMatchObject({
      content: [text('redacted')],
      details: { original: true },
      isError: false,
    });
  });

  test('R17: overriding details only replaces details, with no deep merge', async () => {
    const { end } = await runOneCall(() => ({ details: { replaced: 1 } }));
    expect(end.result).toEqual({
      content: [text('original content')],
      details: { replaced: 1 },
      terminate: true,
    });
  });

  test('R17: overriding isError turns a success into an error and keeps the content', async () => {
    const { end, message } = await runOneCall(() => ({ isError: true }));
    expect(end.isError).toBe(true);
    expect(message.isError).toBe(true);
    expect(textOfResult(message)).toBe('original content');
  });

  test('R17: overriding isError can also clear an error from a throwing body', async () => {
    const { end, message } = await runOneCall(
      () => ({ isError: false }),
      async () => {
        throw new Error('grep found nothing');
      },
    );
    expect(end.isError).toBe(false);
    expect(textOfResult(message)).toBe('grep found nothing');
  });

  test('R17: overriding terminate only changes terminate (and so whether the run goes on)', async () => {
    const { harness, end } = await runOneCall(() => ({ terminate: false }));
    expect(end.result).toEqual({
      content: [text('original content')],
      details: { original: true },
      terminate: false,
    });
    expect(harness.model.requests).toHaveLength(2);
  });

  test('R17: returning nothing keeps the result as it was', async () => {
    const { harness, end } = await runOneCall(() => undefined);
    expect(end.result).toEqual(original);
    expect(harness.model.requests).toHaveLength(1);
  });

  test('R17: the hook sees the args, the result and whether it is an error', async () => {
    const seen: AfterToolCallContext[] = [];
    await runOneCall(
      (context) => {
        seen.push(context);
      },
      async () => {
        throw new Error('nope');
      },
    );
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      toolCall: { id: 'c1' },
      args: { path: 'a' },
      isError: true,
      result: { content: [text('nope')] },
    });
  });

  test('R17: a throwing afterToolCall turns the result into an error with its message', async () => {
    const { harness, end, message } = await runOneCall(async () => {
      throw new Error('audit log unavailable');
    });
    expect(end.isError).toBe(true);
    expect(message.isError).toBe(true);
    expect(textOfResult(message)).toBe('audit log unavailable');
    // The error result no longer asks to terminate: the model is asked again.
    expect(end.result.terminate).toBeUndefined();
    expect(harness.model.requests).toHaveLength(2);
  });

  test('R17: afterToolCall is not called for calls that never ran', async () => {
    const afterToolCall = jest.fn<AfterToolCallHook>();
    const harness = agentHarness({
      tools: [readTool],
      afterToolCall,
      beforeToolCall: () => ({ block: true }),
      answers: [
        assistant([toolCall('u', 'unknown', {}), toolCall('b', 'read', { path: 'a' })]),
        assistant([text('done')]),
      ],
    });
    await harness.run();
    expect(afterToolCall).not.toHaveBeenCalled();
  });
});

describe('R18: terminate', () => {
  test.each(['parallel', 'sequential'] as const)(
    'R18: the run stops after a batch whose every result says terminate (%s)',
    async (toolExecution) => {
      const harness = agentHarness({
        tools: [readTool],
        toolExecution,
        bodies: { read: returning(original) },
        answers: [
          assistant([toolCall('a', 'read', { path: 'a' }), toolCall('b', 'read', { path: 'b' })]),
        ],
      });
      const outcome = await harness.run();
      expect(harness.model.requests).toHaveLength(1);
      expect(outcome.stopReason).toBe('toolUse');
      expect(harness.sink.labels().slice(-2)).toEqual(['turn_end', 'agent_end']);
      expectEveryToolCallAnswered(harness.transcript.messages);
    },
  );

  test('R18: one result with terminate false means another model call', async () => {
    const harness = agentHarness({
      tools: [readTool],
      bodies: {
        read: async (call) => ({ ...original, terminate: call.toolCall.id !== 'b' }),
      },
      answers: [
        assistant([
          toolCall('a', 'read', { path: 'a' }),
          toolCall('b', 'read', { path: 'b' }),
          toolCall('c', 'read', { path: 'c' }),
        ]),
        assistant([text('done')]),
      ],
    });
    await harness.run();
    expect(harness.model.requests).toHaveLength(2);
  });

  test('R18: a result without terminate (an error result, say) means another model call', async () => {
    const harness = agentHarness({
      tools: [readTool],
      bodies: { read: returning(original) },
      answers: [
        assistant([toolCall('a', 'read', { path: 'a' }), toolCall('bad', 'read', {})]),
        assistant([text('done')]),
      ],
    });
    await harness.run();
    expect(harness.model.requests).toHaveLength(2);
  });

  test('R18: afterToolCall can make every result terminate', async () => {
    const harness = agentHarness({
      tools: [readTool],
      afterToolCall: () => ({ terminate: true }),
      answers: [assistant([toolCall('a', 'read', { path: 'a' })]), assistant([text('unused')])],
    });
    await harness.run();
    expect(harness.model.requests).toHaveLength(1);
  });
});
