import type { ApprovalDecision, ApprovalRequest, PreparedToolCall } from '../../src/core/index.js';
import { OPERATION_ABORTED } from '../../src/core/index.js';
import { agentHarness, type Harness } from './support/harness.js';
import { assistant, text, toolCall } from './support/messages.js';
import { readTool } from './support/tools.js';
import { expectEveryToolCallAnswered, resultsOf, textOfResult } from './support/transcript.js';

const request: ApprovalRequest = { reason: 'reads outside the workspace' };

function approvalHarness(): Harness {
  return agentHarness({
    tools: [readTool],
    beforeToolCall: () => ({ approval: request }),
    answers: [assistant([toolCall('c1', 'read', { path: '/etc/hosts' })]), assistant([text('ok')])],
  });
}

function decideWith(
  harness: Harness,
  decide: (call: PreparedToolCall, request: ApprovalRequest) => Promise<ApprovalDecision>,
) {
  harness.effects.awaitApproval = decide;
}

async function onlyResult(harness: Harness) {
  await harness.run();
  expectEveryToolCallAnswered(harness.transcript.messages);
  const [result] = resultsOf(harness.transcript.messages);
  return { isError: result!.isError, text: textOfResult(result) };
}

describe('R22: approval', () => {
  test('R22: an approved call runs, with the request the policy made', async () => {
    const harness = approvalHarness();
    const asked: ApprovalRequest[] = [];
    decideWith(harness, async (_call, received) => {
      asked.push(received);
      return { approved: true };
    });
    expect(await onlyResult(harness)).toEqual({ isError: false, text: 'ok c1' });
    expect(asked).toEqual([request]);
    expect(harness.executed).toHaveLength(1);
  });

  test("R22: a denied call is an error result with the reviewer's reason, never executed", async () => {
    const harness = approvalHarness();
    decideWith(harness, async () => ({ approved: false, reason: 'not today' }));
    expect(await onlyResult(harness)).toEqual({ isError: true, text: 'not today' });
    expect(harness.executed).toEqual([]);
    expect(harness.model.requests).toHaveLength(2);
  });

  test('R22: a denial without a reason has a default text', async () => {
    const harness = approvalHarness();
    decideWith(harness, async () => ({ approved: false }));
    expect(await onlyResult(harness)).toEqual({
      isError: true,
      text: 'Tool read was denied by a reviewer',
    });
  });

  test('R22: a host that cannot ask for approval answers with an error', async () => {
    const harness = approvalHarness();
    expect(await onlyResult(harness)).toEqual({
      isError: true,
      text: 'Tool read needs approval, which this run cannot ask for',
    });
    expect(harness.executed).toEqual([]);
  });

  test('R22, R21: an abort while waiting for the decision is Operation aborted', async () => {
    const harness = approvalHarness();
    decideWith(harness, async () => {
      harness.abort();
      return { approved: true };
    });
    expect(await onlyResult(harness)).toEqual({ isError: true, text: OPERATION_ABORTED });
    expect(harness.executed).toEqual([]);
  });

  test('R22: a failing wait is an error result with its message', async () => {
    const harness = approvalHarness();
    decideWith(harness, async () => {
      throw new Error('approval queue lost');
    });
    expect(await onlyResult(harness)).toEqual({ isError: true, text: 'approval queue lost' });
  });
});

describe('R22, R15: approval in a parallel batch', () => {
  test('R22, R15: the other calls run and end while one waits for its decision', async () => {
    const harness = agentHarness({
      tools: [readTool],
      toolExecution: 'parallel',
      beforeToolCall: ({ toolCall }) =>
        toolCall.id === 'asks' ? { approval: request } : undefined,
      answers: [
        assistant([
          toolCall('asks', 'read', { path: 'a' }),
          toolCall('free', 'read', { path: 'b' }),
        ]),
        assistant([text('ok')]),
      ],
    });
    const freeEnded = new Promise<void>((resolve) => {
      const sink = harness.sink;
      harness.effects.emit = (event) => {
        if (event.type === 'tool_execution_end' && event.toolCallId === 'free') resolve();
        sink.emit(event);
      };
    });
    decideWith(harness, async (call) => {
      expect(call.toolCall.id).toBe('asks');
      // Decided only once the free call has ended: a batch that waited first would hang here.
      await freeEnded;
      return { approved: true };
    });
    await harness.run();
    expectEveryToolCallAnswered(harness.transcript.messages);
    expect(harness.executed.map((call) => call.toolCall.id)).toEqual(['free', 'asks']);
    const ends = harness.sink.events
      .filter((event) => event.type === 'tool_execution_end')
      .map((event) => (event as { toolCallId: string }).toolCallId);
    expect(ends).toEqual(['free', 'asks']);
    // Result messages stay in source order (R15).
    expect(resultsOf(harness.transcript.messages).map((result) => result.toolCallId)).toEqual([
      'asks',
      'free',
    ]);
  });

  test('R22, R14: in a sequential batch the next call waits for the decision', async () => {
    const harness = agentHarness({
      tools: [readTool],
      toolExecution: 'sequential',
      beforeToolCall: ({ toolCall }) =>
        toolCall.id === 'asks' ? { approval: request } : undefined,
      answers: [
        assistant([
          toolCall('asks', 'read', { path: 'a' }),
          toolCall('next', 'read', { path: 'b' }),
        ]),
        assistant([text('ok')]),
      ],
    });
    decideWith(harness, async () => {
      expect(harness.executed).toEqual([]);
      return { approved: false, reason: 'no' };
    });
    await harness.run();
    expect(harness.executed.map((call) => call.toolCall.id)).toEqual(['next']);
  });
});
