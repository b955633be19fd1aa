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
