import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import {
  ApprovalRefusedError,
  decideApproval,
  listPendingApprovals,
} from '../../../src/client/approvals.js';
import { AGENT_WORKFLOW_TYPE, getJob, type AgentJob } from '../../../src/client/job-client.js';
import type { Message, ToolResultMessage } from '../../../src/core/index.js';
import type { PolicyRule } from '../../../src/policy/policy-file.js';
import {
  APPROVAL_REASON_CHARS,
  type PendingApproval,
} from '../../../src/workflows/approval-types.js';
import { pendingApprovalsQuery, statusQuery } from '../../../src/workflows/definitions.js';
import type { SequencedEvent } from '../../../src/workflows/job-types.js';
import { darPhaseKey } from '../../../src/workflows/search-attributes.js';
import {
  jobInput,
  scriptedModel,
  startTestJob,
  temporaryFolder,
  text,
  toolCall,
  uniqueName,
  useAgentTestServer,
} from '../../support/agent-harness.js';
import { workflowRuns } from '../../support/workflow-history.js';

// A low threshold: the continue-as-new test's job continues as new every few turns.
const server = useAgentTestServer('approvals', [
  '--dynamic-config-value',
  'limit.historyCount.suggestContinueAsNew=40',
]);

const pushRule: PolicyRule = {
  tool: 'bash',
  argument: 'command',
  pattern: 'needs-approval',
  reason: 'this command needs a look',
  approve: true,
};

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function waitForPending(job: AgentJob): Promise<PendingApproval[]> {
  return waitFor(async () => {
    const pending = await job.handle.query(pendingApprovalsQuery);
    return pending.length > 0 ? pending : undefined;
  });
}

function eventsOf(events: SequencedEvent[], type: string): Record<string, unknown>[] {
  return events.filter((event) => event.type === type);
}

function resultOf(messages: Message[], id: string): { isError: boolean; text: string } {
  const result = messages.find(
    (message): message is ToolResultMessage =>
      message.role === 'toolResult' && message.toolCallId === id,
  );
  if (!result) throw new Error(`no result for ${id}`);
  const first = result.content[0];
  return { isError: result.isError, text: first?.type === 'text' ? first.text : '' };
}

function startApprovalJob(folder: string, command: string, rules: PolicyRule[] = [pushRule]) {
  const model = scriptedModel(folder, [
    { stopReason: 'toolUse', content: [toolCall('asks', 'bash', { command })] },
    { stopReason: 'stop', content: [text('done')] },
  ]);
  return startTestJob(server, jobInput({ model, workspace: folder, policy: { rules } }));
}

/** How many updates the job's history accepted, over all its runs. */
async function acceptedUpdates(job: AgentJob): Promise<number> {
  const runs = await workflowRuns(server.environment.client, job.handle);
  return runs
    .flatMap((run) => run.events)
    .filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes).length;
}

test('R22: an approved call runs; the wait is visible (DarPhase approval, query, events) and the decision recorded once', async () => {
  const folder = temporaryFolder();
  const job = await startApprovalJob(folder, 'echo needs-approval > approved.txt');
  const [pending] = await waitForPending(job);
  expect(pending).toMatchObject({
    toolCallId: 'asks',
    toolName: 'bash',
    reason: 'this command needs a look',
    args: JSON.stringify({ command: 'echo needs-approval > approved.txt' }),
  });
  expect(pending?.deadline).toBeUndefined();
  // Nothing ran before the decision.
  expect(existsSync(join(folder, 'approved.txt'))).toBe(false);

  // Found through visibility, as `dar approvals` finds it.
  const listed = await waitFor(async () => {
    const rows = await listPendingApprovals(server.environment.client);
    return rows.find((row) => row.jobId === job.workflowId);
  });
  expect(listed).toMatchObject({ toolCallId: 'asks', reason: 'this command needs a look' });
  const described = await job.handle.describe();
  expect(described.typedSearchAttributes.get(darPhaseKey)).toBe('approval');
  expect(await job.handle.query(statusQuery)).toMatchObject({
    phase: 'approval',
    pendingApprovals: 1,
  });

  const decided = await decideApproval(server.environment.client, job.workflowId, {
    toolCallId: 'asks',
    decision: 'approve',
    by: 'alice',
    note: 'fine',
  });
  expect(decided).toMatchObject({
    jobId: job.workflowId,
    toolCallId: 'asks',
    outcome: { decision: 'approve', source: 'operator', by: 'alice', note: 'fine' },
  });
  const result = await job.result();
  expect(resultOf(result.messages, 'asks').isError).toBe(false);
  expect(readFileSync(join(folder, 'approved.txt'), 'utf8')).toBe('needs-approval\n');

  const events = await job.allEvents();
  expect(eventsOf(events, 'approval_requested')).toEqual([
    expect.objectContaining({
      toolCallId: 'asks',
      toolName: 'bash',
      args: { command: 'echo needs-approval > approved.txt' },
      reason: 'this command needs a look',
    }),
  ]);
  expect(eventsOf(events, 'approval_decided')).toEqual([
    expect.objectContaining({ toolCallId: 'asks', decision: 'approve', by: 'alice', note: 'fine' }),
  ]);
  expect(await acceptedUpdates(job)).toBe(1);
});

test('R22: a reason longer than dar allows, from a client that starts the workflow itself, is cut in the query answer; startJob refuses it', async () => {
  const folder = temporaryFolder();
  const longRule: PolicyRule = { ...pushRule, reason: 'why '.repeat(20_000) };
  await expect(startApprovalJob(folder, 'echo needs-approval', [longRule])).rejects.toThrow(
    /^Invalid policy: rules\[0\]\.reason: has 80000 characters, over the limit of 2000$/,
  );
  const model = scriptedModel(folder, [
    {
      stopReason: 'toolUse',
      content: [toolCall('asks', 'bash', { command: 'echo needs-approval' })],
    },
    { stopReason: 'stop', content: [text('done')] },
  ]);
  const workflowId = uniqueName('long-reason');
  await server.environment.client.workflow.start(AGENT_WORKFLOW_TYPE, {
    taskQueue: server.taskQueue,
    workflowId,
    args: [jobInput({ model, workspace: folder, policy: { rules: [longRule] } })],
  });
  const job = getJob(server.environment.client, workflowId, server.store);
  const [pending] = await waitForPending(job);
  expect(pending?.reason).toHaveLength(APPROVAL_REASON_CHARS);
  expect(pending?.reason.endsWith('…')).toBe(true);
  expect(pending?.reason.startsWith('why why')).toBe(true);
  await decideApproval(server.environment.client, workflowId, {
    toolCallId: 'asks',
    decision: 'deny',
  });
  expect((await job.result()).outcome?.status).toBe('completed');
});

test('R22: a denied call never runs and the model reads the note; a second decision and an unknown id are refused', async () => {
  const folder = temporaryFolder();
  const job = await startApprovalJob(folder, 'echo needs-approval > denied.txt');
  await waitForPending(job);
  const client = server.environment.client;
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => 'accepted',
      (error: unknown) => (error instanceof ApprovalRefusedError ? error.refusal : error),
    );
  expect(
    await refusal(decideApproval(client, job.workflowId, { toolCallId: 'nope', decision: 'deny' })),
  ).toBe('unknown');
  // Two operators at once: exactly one decision is taken.
  const both = await Promise.all([
    refusal(
      decideApproval(client, job.workflowId, {
        toolCallId: 'asks',
        decision: 'deny',
        note: 'not on a Friday',
        by: 'bob',
      }),
    ),
    refusal(
      decideApproval(client, job.workflowId, {
        toolCallId: 'asks',
        decision: 'approve',
        by: 'eve',
      }),
    ),
  ]);
  expect(both.sort()).toEqual(['accepted', 'decided']);
  const result = await job.result();
  const answer = resultOf(result.messages, 'asks');
  // Whichever came first won, and only it took effect: denied, the call never ran and the
  // model reads who decided and why; approved, it ran once.
  const decided = eventsOf(await job.allEvents(), 'approval_decided');
  expect(decided).toHaveLength(1);
  const denied = decided[0]?.decision === 'deny';
  expect(existsSync(join(folder, 'denied.txt'))).toBe(!denied);
  expect(answer.isError).toBe(denied);
  if (denied) expect(answer.text).toBe('Tool bash was denied by bob: not on a Friday');
  expect(await acceptedUpdates(job)).toBe(1);
  expect(
    await refusal(decideApproval(client, job.workflowId, { toolCallId: 'asks', decision: 'deny' })),
  ).toBe('not-running');
});

test('R22: when the deadline passes, onTimeout decides: deny by default, allow when asked', async () => {
  const denyFolder = temporaryFolder();
  const allowFolder = temporaryFolder();
  const [denied, allowed] = await Promise.all([
    startApprovalJob(denyFolder, 'echo needs-approval > ran.txt', [
      { ...pushRule, timeoutMs: 1500 },
    ]),
    startApprovalJob(allowFolder, 'echo needs-approval > ran.txt', [
      { ...pushRule, timeoutMs: 1500, onTimeout: 'allow' },
    ]),
  ]);
  const [deniedResult, allowedResult] = await Promise.all([denied.result(), allowed.result()]);
  expect(resultOf(deniedResult.messages, 'asks')).toEqual({
    isError: true,
    text: 'Tool bash was not approved in time: denied when the approval deadline passed',
  });
  expect(existsSync(join(denyFolder, 'ran.txt'))).toBe(false);
  expect(resultOf(allowedResult.messages, 'asks').isError).toBe(false);
  expect(existsSync(join(allowFolder, 'ran.txt'))).toBe(true);
  for (const [job, decision] of [
    [denied, 'deny'],
    [allowed, 'approve'],
  ] as const) {
    const events = await job.allEvents();
    const [requested] = eventsOf(events, 'approval_requested');
    expect(requested).toMatchObject({ onTimeout: decision === 'deny' ? 'deny' : 'allow' });
    expect(Number(requested?.deadline) - Number(requested?.requestedAt)).toBe(1500);
    expect(eventsOf(events, 'approval_decided')).toEqual([
      expect.objectContaining({ decision, source: 'timeout' }),
    ]);
    // The deadline is a durable timer in the job's history.
    const runs = await workflowRuns(server.environment.client, job.handle);
    const timers = runs.flatMap((run) => run.events).filter((e) => e.timerStartedEventAttributes);
    expect(timers).toHaveLength(1);
  }
});

test('R22, R15: in a parallel batch the other call runs and ends while one waits', async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [
    {
      stopReason: 'toolUse',
      content: [
        toolCall('asks', 'bash', { command: 'echo needs-approval > asked.txt' }),
        toolCall('free', 'bash', { command: 'echo free > free.txt' }),
      ],
    },
    { stopReason: 'stop', content: [text('done')] },
  ]);
  const job = await startTestJob(
    server,
    jobInput({ model, workspace: folder, policy: { rules: [pushRule] } }),
  );
  await waitFor(async () =>
    (await job.allEvents()).find(
      (event) => event.type === 'tool_execution_end' && event.toolCallId === 'free',
    ),
  );
  expect(readFileSync(join(folder, 'free.txt'), 'utf8')).toBe('free\n');
  // Still waiting, and still shown as waiting while the other call has finished.
  expect((await job.handle.query(pendingApprovalsQuery)).map((call) => call.toolCallId)).toEqual([
    'asks',
  ]);
  expect(await job.handle.query(statusQuery)).toMatchObject({
    phase: 'approval',
  });
  await decideApproval(server.environment.client, job.workflowId, {
    toolCallId: 'asks',
    decision: 'approve',
  });
  const result = await job.result();
  expect(resultOf(result.messages, 'asks').isError).toBe(false);
  expect(resultOf(result.messages, 'free').isError).toBe(false);
  expect(existsSync(join(folder, 'asked.txt'))).toBe(true);
});

test('R22, R21: cancelling a job while a call waits aborts it: Operation aborted, agent_end, nothing ran', async () => {
  const folder = temporaryFolder();
  const job = await startApprovalJob(folder, 'echo needs-approval > cancelled.txt');
  await waitForPending(job);
  await job.cancel();
  await expect(job.result()).rejects.toBeInstanceOf(WorkflowFailedError);
  expect(existsSync(join(folder, 'cancelled.txt'))).toBe(false);
  const events = await job.allEvents();
  expect(eventsOf(events, 'approval_decided')).toEqual([
    expect.objectContaining({ toolCallId: 'asks', source: 'cancelled' }),
  ]);
  const end = events.find(
    (event) => event.type === 'tool_execution_end' && event.toolCallId === 'asks',
  );
  expect(end).toMatchObject({
    isError: true,
    result: { content: [{ text: 'Operation aborted' }] },
  });
  expect(events.at(-1)?.type).toBe('agent_end');
});

test('R22: approvals in a job that continues as new: asked after one, decided once, the decision carried to the next run', async () => {
  const folder = temporaryFolder();
  const bashTurns = (from: number, count: number, delayMs = 0) =>
    Array.from({ length: count }, (_, index) => ({
      stopReason: 'toolUse' as const,
      content: [toolCall(`call-${from + index}`, 'bash', { command: `echo ${from + index}` })],
      delayMs,
    }));
  const model = scriptedModel(folder, [
    ...bashTurns(0, 6),
    {
      stopReason: 'toolUse',
      content: [toolCall('asks', 'bash', { command: 'echo needs-approval >> asked.txt' })],
    },
    // Slower turns: the job is still running when the late decision is sent.
    ...bashTurns(6, 6, 300),
    { stopReason: 'stop', content: [text('done')], delayMs: 3000 },
  ]);
  const job = await startTestJob(
    server,
    jobInput({ model, workspace: folder, policy: { rules: [pushRule] } }),
  );
  await waitForPending(job);
  const before = await job.status();
  expect(before.continuedAsNew).toBeGreaterThan(0);
  await decideApproval(server.environment.client, job.workflowId, {
    toolCallId: 'asks',
    decision: 'approve',
    by: 'carol',
  });
  // The job continues as new again after the decision; a late second decision reaches the
  // newest run, which still knows the call was decided.
  await waitFor(async () =>
    (await job.status()).continuedAsNew > before.continuedAsNew ? true : undefined,
  );
  await expect(
    decideApproval(server.environment.client, job.workflowId, {
      toolCallId: 'asks',
      decision: 'deny',
    }),
  ).rejects.toMatchObject({
    refusal: 'decided',
    message: expect.stringContaining('by carol') as unknown,
  });
  const result = await job.result();
  expect(readFileSync(join(folder, 'asked.txt'), 'utf8')).toBe('needs-approval\n');
  expect(resultOf(result.messages, 'asks').isError).toBe(false);
  const events = await job.events(0, 100_000);
  expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  expect(eventsOf(events, 'approval_decided')).toHaveLength(1);
  expect(await acceptedUpdates(job)).toBe(1);
}, 120_000);
