import type { Message } from '../../../src/core/index.js';
import { batchBudgetSignal } from '../../../src/workflows/definitions.js';
import {
  jobInput,
  scriptedModel,
  startTestJob,
  temporaryFolder,
  text,
  toolCall,
  useAgentTestServer,
} from '../../support/agent-harness.js';

// A low threshold makes Temporal suggest continue-as-new after a few turns.
const server = useAgentTestServer('continue-as-new', [
  '--dynamic-config-value',
  'limit.historyCount.suggestContinueAsNew=30',
]);

test('a long job continues as new: transcript, queues and event numbering carry over', async () => {
  const folder = temporaryFolder();
  const turns = 12;
  const answers = Array.from({ length: turns }, (_, index) => ({
    stopReason: 'toolUse' as const,
    content: [toolCall(`call-${index}`, 'bash', { command: `echo turn ${index}` })],
  }));
  const model = scriptedModel(folder, [
    ...answers,
    { stopReason: 'stop', content: [text('all done')] },
  ]);
  const job = await startTestJob(server, jobInput({ model, workspace: folder }));
  const result = await job.result();

  expect(result.status.continuedAsNew).toBeGreaterThan(0);
  expect(result.status.modelCalls).toBe(turns + 1);
  const messages: Message[] = result.messages;
  const callIds = messages.flatMap((message) =>
    message.role === 'toolResult' ? [message.toolCallId] : [],
  );
  // Every turn's result exactly once, in order: nothing lost, nothing repeated.
  expect(callIds).toEqual(answers.map((_, index) => `call-${index}`));
  expect(messages.filter((message) => message.role === 'user')).toHaveLength(1);

  const events = await job.events(0, 100_000);
  expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  expect(events.filter((event) => event.type === 'agent_start')).toHaveLength(1);
  expect(events.filter((event) => event.type === 'agent_end')).toHaveLength(1);
  expect(events.filter((event) => event.type === 'turn_start')).toHaveLength(turns + 1);
  expect(events.filter((event) => event.type === 'turn_end')).toHaveLength(turns + 1);
});

test('R20: a budget holds across continue-as-new: turns count on, wall time from the first run', async () => {
  const folder = temporaryFolder();
  const answers = Array.from({ length: 12 }, (_, index) => ({
    stopReason: 'toolUse' as const,
    content: [toolCall(`call-${index}`, 'bash', { command: `echo turn ${index}` })],
  }));
  const model = scriptedModel(folder, answers);
  const job = await startTestJob(
    server,
    jobInput({ model, workspace: folder, budget: { maxTurns: 8, maxWallTimeMs: 600_000 } }),
  );
  const result = await job.result();
  expect(result.status.continuedAsNew).toBeGreaterThan(0);
  expect(result.status.budgetExceeded).toEqual({ limit: 'turns', used: 8, max: 8 });
  expect(result.outcome).toMatchObject({
    status: 'failed',
    error: 'Budget exceeded: turns 8 of 8',
  });
  expect(result.status.modelCalls).toBe(8);
  // The start time was carried: it is the first run's, earlier than the last run's start.
  const lastRunStart = (await job.handle.describe()).startTime.getTime();
  expect(result.status.startedAt).toBeLessThan(lastRunStart);
  const events = await job.events(0, 100_000);
  expect(events.at(-1)?.type).toBe('agent_end');
});

test('R20: a job that continued as new still ends at a turn boundary when its batch spends its budget', async () => {
  const folder = temporaryFolder();
  const answers = Array.from({ length: 30 }, (_, index) => ({
    stopReason: 'toolUse' as const,
    content: [toolCall(`call-${index}`, 'bash', { command: `echo turn ${index}` })],
    delayMs: 150,
  }));
  const model = scriptedModel(folder, answers);
  const job = await startTestJob(server, jobInput({ model, workspace: folder }));
  for (let attempt = 0; (await job.status()).continuedAsNew === 0; attempt += 1) {
    if (attempt > 200) throw new Error('the job never continued as new');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const exceeded = { limit: 'tokens' as const, used: 5200, max: 5000 };
  // Sent by id, as `dar batch` does: it reaches the job's current run.
  await job.handle.signal(batchBudgetSignal, exceeded);
  const result = await job.result();
  expect(result.status.continuedAsNew).toBeGreaterThan(0);
  expect(result.outcome).toMatchObject({
    status: 'failed',
    error: 'Batch budget exceeded: tokens 5200 of 5000',
    budgetExceeded: { ...exceeded, scope: 'batch' },
  });
  expect(result.status.modelCalls).toBeLessThan(30);
  const events = await job.events(0, 100_000);
  expect(events.slice(-2).map((event) => event.type)).toEqual(['turn_end', 'agent_end']);
  const starts = events.filter((event) => event.type === 'tool_execution_start').length;
  expect(events.filter((event) => event.type === 'tool_execution_end')).toHaveLength(starts);
});
