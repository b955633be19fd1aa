import { jest } from '@jest/globals';
import {
  truncatedToolCallText,
  type AfterToolCallHook,
  type BeforeToolCallHook,
} from '../../src/core/index.js';
import { agentHarness } from './support/harness.js';
import { assistant, text, toolCall, user } from './support/messages.js';
import { readTool, settingsTool } from './support/tools.js';
import { expectEveryToolCallAnswered, resultsOf, textOfResult } from './support/transcript.js';

test('R1, R5: event order of a simple run with one tool call', async () => {
  const harness = agentHarness({
    tools: [readTool],
    answers: [
      assistant([text('reading'), toolCall('c1', 'read', { path: 'a.txt' })]),
      assistant([text('done')]),
    ],
  });
  const outcome = await harness.run([user('read a.txt')]);

  expect(harness.sink.labels()).toEqual([
    'agent_start',
    'turn_start',
    'message_start:user',
    'message_end:user',
    'message_start:assistant',
    'message_end:assistant',
    'tool_execution_start:c1',
    'tool_execution_end:c1',
    'message_start:toolResult:c1',
    'message_end:toolResult:c1',
    'turn_end',
    'turn_start',
    'message_start:assistant',
    'message_end:assistant',
    'turn_end',
    'agent_end',
  ]);
  expect(outcome.stopReason).toBe('stop');
  expect(outcome.newMessages.map((message) => message.role)).toEqual([
    'user',
    'assistant',
    'toolResult',
    'assistant',
  ]);
  expect(harness.transcript.messages).toEqual(outcome.newMessages);
  const agentEnd = harness.sink.events.at(-1);
  expect(agentEnd).toEqual({ type: 'agent_end', messages: outcome.newMessages });
  const firstTurnEnd = harness.sink.events.find((event) => event.type === 'turn_end');
  expect(firstTurnEnd).toMatchObject({ toolResults: [{ toolCallId: 'c1', isError: false }] });
  // The second model call sees the tool result and the descriptor of the tool.
  expect(harness.model.requests).toHaveLength(2);
  expect(harness.model.requests[1]!.messages.map((message) => message.role)).toEqual([
    'user',
    'assistant',
    'toolResult',
  ]);
  expect(harness.model.requests[0]!.tools).toEqual([
    {
      name: 'read',
      description: 'test tool read',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
  ]);
  expect(textOfResult(resultsOf(harness.transcript.messages)[0])).toBe('ok c1');
  expectEveryToolCallAnswered(harness.transcript.messages);
});

test('R3: truncated message whose calls would validate never reaches execute; the next model call happens', async () => {
  const beforeToolCall = jest.fn<BeforeToolCallHook>();
  const afterToolCall = jest.fn<AfterToolCallHook>();
  const prepareArguments = jest.fn((raw: unknown) => raw);
  const harness = agentHarness({
    tools: [{ ...readTool, prepareArguments }, settingsTool],
    beforeToolCall,
    afterToolCall,
    answers: [
      assistant(
        [
          toolCall('t1', 'read', { path: 'a.txt' }),
          toolCall('t2', 'settings', { count: 1, ratio: 0.5, enabled: true, label: 'x' }),
          toolCall('t3', 'nonexistent', {}),
        ],
        'length',
      ),
      assistant([text('retrying later')]),
    ],
  });
  const outcome = await harness.run();

  expect(harness.executed).toEqual([]);
  expect(beforeToolCall).not.toHaveBeenCalled();
  expect(afterToolCall).not.toHaveBeenCalled();
  expect(prepareArguments).not.toHaveBeenCalled();
  expect(
    harness.sink.labels(
      (event) => event.type.startsWith('tool_execution') || event.type.startsWith('message'),
    ),
  ).toEqual([
    'message_start:user',
    'message_end:user',
    'message_start:assistant',
    'message_end:assistant',
    'tool_execution_start:t1',
    'tool_execution_end:t1',
    'message_start:toolResult:t1',
    'message_end:toolResult:t1',
    'tool_execution_start:t2',
    'tool_execution_end:t2',
    'message_start:toolResult:t2',
    'message_end:toolResult:t2',
    'tool_execution_start:t3',
    'tool_execution_end:t3',
    'message_start:toolResult:t3',
    'message_end:toolResult:t3',
    'message_start:assistant',
    'message_end:assistant',
  ]);
  for (const event of harness.sink.events) {
    if (event.type === 'tool_execution_end') expect(event.isError).toBe(true);
  }
  const results = resultsOf(harness.transcript.messages);
  expect(results.map((result) => [result.toolCallId, result.isError])).toEqual([
    ['t1', true],
    ['t2', true],
    ['t3', true],
  ]);
  for (const result of results) {
    expect(textOfResult(result)).toBe(truncatedToolCallText(result.toolName));
    expect(textOfResult(result)).toMatch(/output token limit/);
    // Pi's words (issue #14): the name, the limit, and the request to send it again complete.
    expect(textOfResult(result)).toBe(
      `Tool call "${result.toolName}" was not executed: the response hit the output token ` +
        'limit, so its arguments may be truncated. Re-issue the tool call with complete arguments.',
    );
  }
  // The batch did not terminate the run: the model was asked again and saw the failures.
  expect(harness.model.requests).toHaveLength(2);
  expect(resultsOf(harness.model.requests[1]!.messages)).toHaveLength(3);
  expect(outcome.stopReason).toBe('stop');
  expectEveryToolCallAnswered(harness.transcript.messages);
});

test('R3: a truncated message without tool calls simply ends the run', async () => {
  const harness = agentHarness({
    tools: [readTool],
    answers: [assistant([text('cut')], 'length')],
  });
  const outcome = await harness.run();
  expect(outcome.stopReason).toBe('length');
  expect(harness.model.requests).toHaveLength(1);
  expect(resultsOf(harness.transcript.messages)).toEqual([]);
});

test.each(['error', 'aborted'] as const)(
  'R2: stopReason %s ends the run; its tool calls are never prepared or executed',
  async (stopReason) => {
    const beforeToolCall = jest.fn<BeforeToolCallHook>();
    const harness = agentHarness({
      tools: [readTool],
      beforeToolCall,
      followUps: [[user('a follow-up that must not start a turn')]],
      answers: [
        assistant([toolCall('c1', 'read', { path: 'a.txt' })]),
        assistant([toolCall('c2', 'read', { path: 'b.txt' })], stopReason, 'provider said no'),
      ],
    });
    const outcome = await harness.run();

    expect(outcome.stopReason).toBe(stopReason);
    expect(harness.executed.map((call) => call.toolCall.id)).toEqual(['c1']);
    expect(beforeToolCall).toHaveBeenCalledTimes(1);
    expect(harness.model.requests).toHaveLength(2);
    expect(harness.sink.labels().slice(-5)).toEqual([
      'turn_start',
      'message_start:assistant',
      'message_end:assistant',
      'turn_end',
      'agent_end',
    ]);
    const lastTurnEnd = harness.sink.events.filter((event) => event.type === 'turn_end').at(-1);
    expect(lastTurnEnd).toMatchObject({ toolResults: [], message: { stopReason } });
    expect(
      harness.sink.events.some(
        (event) => event.type === 'tool_execution_start' && event.toolCallId === 'c2',
      ),
    ).toBe(false);
    // R2 decides over R4 here: the failed message stays in the transcript with its call
    // unanswered (Pi does the same; providers drop error/aborted assistant messages).
    expect(harness.transcript.messages.at(-1)).toMatchObject({ role: 'assistant', stopReason });
    expect(resultsOf(harness.transcript.messages).map((result) => result.toolCallId)).toEqual([
      'c1',
    ]);
    // The run ends: queued follow-ups are not read.
    expect(harness.reads.followUps).toBe(0);
    expectEveryToolCallAnswered(harness.transcript.messages);
  },
);

test('R2, R21: a run aborted before its first model call records an aborted message and ends', async () => {
  const harness = agentHarness({ tools: [readTool], answers: [] });
  harness.abort();
  const outcome = await harness.run();
  expect(harness.model.requests).toHaveLength(0);
  expect(outcome.stopReason).toBe('aborted');
  expect(harness.transcript.messages.at(-1)).toMatchObject({
    role: 'assistant',
    stopReason: 'aborted',
    errorMessage: 'Operation aborted',
  });
  expect(harness.sink.labels().slice(-2)).toEqual(['turn_end', 'agent_end']);
});
