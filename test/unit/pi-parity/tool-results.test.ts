import { runInNewContext } from 'node:vm';
import { MockActivityEnvironment } from '@temporalio/testing';
import { Type } from '@sinclair/typebox';
import {
  emptyUsage,
  messageOf,
  type AfterToolCallHook,
  type AgentEvent,
  type ToolExecutionResult,
  type Usage,
} from '../../../src/core/index.js';
import { makeExecuteTool } from '../../../src/activities/execute-tool.js';
import type { ToolImplementation } from '../../../src/tools/tool-implementation.js';
import type { ToolJournal } from '../../../src/tools/tool-journal.js';
import { agentHarness, type ToolBody } from '../support/harness.js';
import { assistant, text, toolCall } from '../support/messages.js';
import { readTool } from '../support/tools.js';
import { resultsOf, textOfResult } from '../support/transcript.js';

const toolUsage: Usage = { ...emptyUsage(), input: 120, output: 30, totalTokens: 150 };

async function runOneCall(body: ToolBody, afterToolCall?: AfterToolCallHook) {
  const harness = agentHarness({
    tools: [readTool],
    bodies: { read: body },
    ...(afterToolCall ? { afterToolCall } : {}),
    answers: [assistant([toolCall('c1', 'read', { path: 'a' })]), assistant([text('done')])],
  });
  await harness.run();
  const end = harness.sink.events.find((event) => event.type === 'tool_execution_end');
  if (end?.type !== 'tool_execution_end') throw new Error('no end event');
  return { harness, end, message: resultsOf(harness.transcript.messages)[0]! };
}

describe('usage on tool results (Pi 0.81)', () => {
  test('a tool result message carries the usage its body reported', async () => {
    const { message, end } = await runOneCall(async () => ({
      content: [text('ok')],
      usage: toolUsage,
    }));
    expect(message.usage).toEqual(toolUsage);
    expect(end.result.usage).toEqual(toolUsage);
  });

  test('R17: afterToolCall returning usage replaces the result usage, field by field', async () => {
    const replaced: Usage = { ...emptyUsage(), input: 1, totalTokens: 1 };
    const { message } = await runOneCall(
      async () => ({ content: [text('ok')], usage: toolUsage }),
      () => ({ usage: replaced }),
    );
    expect(message.usage).toEqual(replaced);
    expect(textOfResult(message)).toBe('ok');
  });

  test('a tool result without usage has no usage field', async () => {
    const { message } = await runOneCall(async () => ({ content: [text('ok')] }));
    expect('usage' in message).toBe(false);
  });
});

describe('R17: afterToolCall null fields keep the tool values (as Pi)', () => {
  const original: ToolExecutionResult = {
    content: [text('original')],
    details: { kept: true },
    usage: toolUsage,
  };

  test('{ content: null } keeps the content; the next model request gets an array', async () => {
    const { harness, message, end } = await runOneCall(
      async () => structuredClone(original),
      () => ({ content: null }),
    );
    expect(message.content).toEqual([text('original')]);
    expect(end.result.content).toEqual([text('original')]);
    const sent = harness.model.requests[1]!.messages.find((m) => m.role === 'toolResult');
    expect(sent?.content).toEqual([text('original')]);
  });

  test('null details, isError, usage and terminate keep the tool values', async () => {
    const { message, end } = await runOneCall(
      async () => structuredClone(original),
      () => ({ details: null, isError: null, usage: null, terminate: null }),
    );
    expect(message).toMatchObject({ details: { kept: true }, isError: false, usage: toolUsage });
    expect(end.result.terminate).toBeUndefined();
  });

  test('a body that returns no content (a plain JavaScript tool) gets an empty content array', async () => {
    const { message } = await runOneCall(
      async () => ({ details: {} }) as unknown as ToolExecutionResult,
    );
    expect(message.content).toEqual([]);
  });
});

describe('late and awaited progress updates (Pi 0.79.2)', () => {
  test('an update sent after the body settled is ignored, never emitted after tool_execution_end', async () => {
    let lateUpdate: (() => void) | undefined;
    const { harness } = await runOneCall(async (_call, onUpdate) => {
      onUpdate({ step: 1 });
      lateUpdate = () => onUpdate({ step: 'late' });
      return { content: [text('ok')] };
    });
    lateUpdate!();
    await new Promise((resolve) => setTimeout(resolve, 10));
    const updates = harness.sink.events.filter((event) => event.type === 'tool_execution_update');
    expect(updates).toHaveLength(1);
    expect(updates[0]).toMatchObject({ partialResult: { step: 1 } });
    const labels = harness.sink.labels((event) => event.type.startsWith('tool_execution'));
    expect(labels).toEqual([
      'tool_execution_start:c1',
      'tool_execution_update:c1',
      'tool_execution_end:c1',
    ]);
  });

  test('a slow update emit finishes before the end event is emitted', async () => {
    const order: string[] = [];
    const harness = agentHarness({
      tools: [readTool],
      bodies: {
        read: async (_call, onUpdate) => {
          onUpdate({ step: 1 });
          return { content: [text('ok')] };
        },
      },
      answers: [assistant([toolCall('c1', 'read', { path: 'a' })]), assistant([text('done')])],
    });
    harness.effects.emit = async (event: AgentEvent) => {
      if (event.type === 'tool_execution_update') {
        await new Promise((resolve) => setTimeout(resolve, 30));
        order.push('update emitted');
      }
      if (event.type === 'tool_execution_end') order.push('end emitted');
    };
    await harness.run();
    expect(order).toEqual(['update emitted', 'end emitted']);
  });
});

describe('R16: a thrown non-Error gives the same text in-process and in the tool activity', () => {
  const thrown: unknown[] = [
    { code: 'E_QUOTA', retryInSeconds: 30 },
    'plain string',
    42,
    runInNewContext('new Error("from another realm")'),
  ];

  test.each(thrown.map((value) => [messageOf(value), value]))(
    'in-process text %s',
    async (expected, value) => {
      const { message } = await runOneCall(async () => {
        throw value;
      });
      expect(message.isError).toBe(true);
      expect(textOfResult(message)).toBe(expected);
    },
  );

  test('a plain object is JSON, not [object Object], in-process and from the activity', async () => {
    const value: unknown = { code: 'E_QUOTA', retryInSeconds: 30 };
    const { message } = await runOneCall(async () => {
      throw value;
    });
    expect(textOfResult(message)).toBe('{"code":"E_QUOTA","retryInSeconds":30}');

    const failing: ToolImplementation = {
      spec: { name: 'fails', label: 'fails', description: '', parameters: Type.Object({}) },
      execute: async () => {
        throw value;
      },
    };
    const executeTool = makeExecuteTool(
      new Map([['fails', failing]]),
      {} as unknown as ToolJournal,
    );
    const activity = new MockActivityEnvironment();
    await expect(
      activity.run(executeTool, {
        toolName: 'fails',
        toolCallId: 'c1',
        args: {},
        workspace: '/tmp',
        idempotencyKey: 'k',
      }),
    ).rejects.toMatchObject({ message: textOfResult(message) });
  });
});
