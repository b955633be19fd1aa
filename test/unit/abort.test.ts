import { jest } from '@jest/globals';
import {
  OPERATION_ABORTED,
  type AfterToolCallHook,
  type BeforeToolCallHook,
  type ToolExecutionMode,
} from '../../src/core/index.js';
import { until } from './support/deferred.js';
import { isToolEvent } from './support/event-sink.js';
import { gatedBodies } from './support/gated-bodies.js';
import { agentHarness } from './support/harness.js';
import { assistant, text, toolCall } from './support/messages.js';
import { readTool } from './support/tools.js';
import { expectEveryToolCallAnswered, resultsOf, textOfResult } from './support/transcript.js';

const calls = ['a', 'b', 'c', 'd'].map((id) => toolCall(id, 'read', { path: id }));

function summary(harness: ReturnType<typeof agentHarness>) {
  return resultsOf(harness.transcript.messages).map(
    (result) => `${result.toolCallId}:${result.isError ? 'error' : 'ok'}:${textOfResult(result)}`,
  );
}

/** Each call: exactly one start, then exactly one end, and one result message (R4, R5). */
function expectOneStartEndAndResultPerCall(harness: ReturnType<typeof agentHarness>) {
  for (const call of calls) {
    const own = harness.sink.labels(isToolEvent).filter((label) => label.endsWith(`:${call.id}`));
    expect(own).toEqual([
      `tool_execution_start:${call.id}`,
      `tool_execution_end:${call.id}`,
      `message_start:toolResult:${call.id}`,
      `message_end:toolResult:${call.id}`,
    ]);
  }
  expectEveryToolCallAnswered(harness.transcript.messages);
}

describe('R19: abort in the middle of a batch', () => {
  test('R19: sequential: abort during the second body; later calls are answered without executing', async () => {
    const beforeToolCall = jest.fn<BeforeToolCallHook>();
    const harness = agentHarness({
      tools: [readTool],
      toolExecution: 'sequential',
      beforeToolCall,
      followUps: [[]],
      bodies: {
        read: async (call) => {
          if (call.toolCall.id === 'b') harness.abort();
          return { content: [text(`read ${call.toolCall.id}`)] };
        },
      },
      answers: [assistant(calls), assistant([text('must not be asked')])],
    });
    const outcome = await harness.run();
    expect(harness.executed.map((call) => call.toolCall.id)).toEqual(['a', 'b']);
    expect(beforeToolCall).toHaveBeenCalledTimes(2);
    expect(summary(harness)).toEqual([
      'a:ok:read a',
      'b:ok:read b',
      `c:error:${OPERATION_ABORTED}`,
      `d:error:${OPERATION_ABORTED}`,
    ]);
    expectOneStartEndAndResultPerCall(harness);
    // R21: no new turn; agent_end closes the run.
    expect(harness.model.requests).toHaveLength(1);
    expect(harness.sink.labels().slice(-2)).toEqual(['turn_end', 'agent_end']);
    expect(outcome.stopReason).toBe('toolUse');
    expect(harness.reads.followUps).toBe(0);
  });

  test.each(['sequential', 'parallel'] as const)(
    'R19: %s: abort raised in the hook of the second call; it and every later call get Operation aborted',
    async (toolExecution: ToolExecutionMode) => {
      const hookCalls: string[] = [];
      const harness = agentHarness({
        tools: [readTool],
        toolExecution,
        beforeToolCall: ({ toolCall: call }) => {
          hookCalls.push(call.id);
          if (call.id === 'b') harness.abort();
        },
        answers: [assistant(calls), assistant([text('must not be asked')])],
      });
      await harness.run();
      expect(hookCalls).toEqual(['a', 'b']);
      if (toolExecution === 'sequential') {
        expect(harness.executed.map((call) => call.toolCall.id)).toEqual(['a']);
        expect(summary(harness)[0]).toBe('a:ok:ok a');
      } else {
        // Parallel: `a` was prepared, but the abort came before the bodies started.
        expect(harness.executed).toEqual([]);
        expect(summary(harness)[0]).toBe(`a:error:${OPERATION_ABORTED}`);
      }
      expect(summary(harness).slice(1)).toEqual([
        `b:error:${OPERATION_ABORTED}`,
        `c:error:${OPERATION_ABORTED}`,
        `d:error:${OPERATION_ABORTED}`,
      ]);
      expectOneStartEndAndResultPerCall(harness);
      expect(harness.model.requests).toHaveLength(1);
    },
  );

  test('R19, R15: parallel: the aborted calls end during preflight, in source order', async () => {
    const harness = agentHarness({
      tools: [readTool],
      beforeToolCall: ({ toolCall: call }) => {
        if (call.id === 'b') harness.abort();
      },
      answers: [assistant(calls)],
    });
    await harness.run();
    expect(harness.sink.labels(isToolEvent)).toEqual([
      'tool_execution_start:a',
      'tool_execution_start:b',
      'tool_execution_end:b',
      'tool_execution_start:c',
      'tool_execution_end:c',
      'tool_execution_start:d',
      'tool_execution_end:d',
      'tool_execution_end:a',
      ...calls.flatMap((call) => [
        `message_start:toolResult:${call.id}`,
        `message_end:toolResult:${call.id}`,
      ]),
    ]);
  });

  test('R21: parallel: bodies running when the abort comes end as Operation aborted if they fail', async () => {
    const gated = gatedBodies();
    const afterToolCall = jest.fn<AfterToolCallHook>();
    const harness = agentHarness({
      tools: [readTool],
      afterToolCall,
      bodies: { read: gated.body },
      answers: [assistant(calls.slice(0, 3)), assistant([text('must not be asked')])],
    });
    const running = harness.run();
    await until(() => gated.started.length === 3);
    harness.abort();
    gated.fail('a', new Error('killed by signal'));
    gated.release('b');
    gated.fail('c', new Error('connection reset'));
    await running;
    expect(summary(harness)).toEqual([
      `a:error:${OPERATION_ABORTED}`,
      'b:ok:done b',
      `c:error:${OPERATION_ABORTED}`,
    ]);
    // afterToolCall runs for the body that finished, not for the aborted ones.
    expect(afterToolCall.mock.calls.map(([context]) => context.toolCall.id)).toEqual(['b']);
    expect(harness.model.requests).toHaveLength(1);
    expectEveryToolCallAnswered(harness.transcript.messages);
  });
});

test.each(['sequential', 'parallel'] as const)(
  'R19: %s: after an abort, later calls are not even looked up or prepared: unknown and invalid ones get Operation aborted too',
  async (toolExecution: ToolExecutionMode) => {
    const prepareArguments = jest.fn((raw: unknown) => raw);
    const harness = agentHarness({
      tools: [{ ...readTool, prepareArguments }],
      toolExecution,
      beforeToolCall: ({ toolCall: call }) => {
        if (call.id === 'first') harness.abort();
      },
      answers: [
        assistant([
          toolCall('first', 'read', { path: 'a' }),
          toolCall('unknown', 'no_such_tool', {}),
          toolCall('invalid', 'read', { path: { not: 'a string' } }),
          toolCall('valid', 'read', { path: 'b' }),
        ]),
      ],
    });
    await harness.run();
    expect(prepareArguments).toHaveBeenCalledTimes(1);
    expect(harness.executed).toEqual([]);
    expect(summary(harness)).toEqual(
      ['first', 'unknown', 'invalid', 'valid'].map((id) => `${id}:error:${OPERATION_ABORTED}`),
    );
    expectEveryToolCallAnswered(harness.transcript.messages);
  },
);
