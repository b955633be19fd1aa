import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { jobEnding } from '../../../src/client/job-ending.js';
import { exitCodeFor } from '../../../src/cli/commands/run.js';
import type { ScriptedAnswer } from '../../../src/providers/model-script.js';
import {
  jobInput,
  scriptedModel,
  startTestJob,
  temporaryFolder,
  text,
  toolCall,
  useAgentTestServer,
  waitForPhase,
} from '../../support/agent-harness.js';

const server = useAgentTestServer('budget');

/** An answer that writes `file-<n>.txt`, reporting 60 input and 40 output tokens. */
function writeAnswer(n: number): ScriptedAnswer {
  return {
    stopReason: 'toolUse',
    content: [toolCall(`w${n}`, 'write', { path: `file-${n}.txt`, content: `turn ${n}` })],
    usage: { input: 60, output: 40, costUsd: 0.01 },
  };
}

const fiveWriteTurns = [1, 2, 3, 4, 5].map(writeAnswer);

async function labels(job: Awaited<ReturnType<typeof startTestJob>>): Promise<string[]> {
  return (await job.events(0)).map((event) => event.type);
}

test('R20: maxTurns stops the job at a turn boundary: the last turn tools ran, no further model call', async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, fiveWriteTurns);
  const job = await startTestJob(
    server,
    jobInput({ model, workspace: folder, budget: { maxTurns: 2 } }),
  );
  const ending = await jobEnding(job);
  expect(ending).toMatchObject({
    status: 'failed',
    error: 'Budget exceeded: turns 2 of 2',
    budgetExceeded: { limit: 'turns', used: 2, max: 2 },
  });
  expect(exitCodeFor(ending)).toBe(3);
  // Both turns' tool bodies finished; the third answer was never asked for.
  expect(existsSync(join(folder, 'file-2.txt'))).toBe(true);
  expect(existsSync(join(folder, 'file-3.txt'))).toBe(false);
  const status = await job.status();
  expect(status.modelCalls).toBe(2);
  expect(status.budgetExceeded).toEqual({ limit: 'turns', used: 2, max: 2 });
  expect(status.budget).toEqual({ maxTurns: 2 });
  const events = await labels(job);
  expect(events.filter((type) => type === 'turn_start')).toHaveLength(2);
  expect(events.slice(-3)).toEqual(['message_end', 'turn_end', 'agent_end']);
});

test('R20: maxTokens counts the usage the model reports and stops once it is reached', async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, fiveWriteTurns);
  const job = await startTestJob(
    server,
    jobInput({ model, workspace: folder, budget: { maxTokens: 250 } }),
  );
  const ending = await jobEnding(job);
  // 100 tokens a turn: 200 after two turns lets the third start; 300 after it stops the job.
  expect(ending.budgetExceeded).toEqual({ limit: 'tokens', used: 300, max: 250 });
  expect(ending.status).toBe('failed');
  const status = await job.status();
  expect(status.modelCalls).toBe(3);
  expect(status.usage.totalTokens).toBe(300);
  expect(status.usage.cost.total).toBeCloseTo(0.03);
  expect(existsSync(join(folder, 'file-3.txt'))).toBe(true);
  expect((await labels(job)).at(-1)).toBe('agent_end');
});

test('R20: a job that finishes on its last allowed turn completed; the budget did not stop it', async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [
    writeAnswer(1),
    {
      stopReason: 'stop',
      content: [text('all written')],
      usage: { input: 5, output: 5, costUsd: 0 },
    },
  ]);
  const job = await startTestJob(
    server,
    jobInput({ model, workspace: folder, budget: { maxTurns: 2, maxTokens: 110 } }),
  );
  const ending = await jobEnding(job);
  expect(ending).toMatchObject({ status: 'completed', text: 'all written' });
  expect(ending.budgetExceeded).toBeUndefined();
  expect(exitCodeFor(ending)).toBe(0);
});

test('R23: maxWallTimeMs counts workflow time since the job started and stops at a turn boundary', async () => {
  const folder = temporaryFolder();
  // Each answer takes 700 ms: the third turn starts after about 1.4 s and ends the budget.
  const slow = fiveWriteTurns.map((answer) => ({ ...answer, delayMs: 700 }));
  const model = scriptedModel(folder, slow);
  const job = await startTestJob(
    server,
    jobInput({ model, workspace: folder, budget: { maxWallTimeMs: 1500 } }),
  );
  const ending = await jobEnding(job);
  expect(ending.budgetExceeded?.limit).toBe('wallTime');
  expect(ending.budgetExceeded?.max).toBe(1500);
  expect(ending.budgetExceeded?.used).toBeGreaterThanOrEqual(1500);
  const status = await job.status();
  expect(status.modelCalls).toBeGreaterThanOrEqual(2);
  expect(status.modelCalls).toBeLessThan(5);
  // The turn under way when time ran out finished its tool body.
  expect(existsSync(join(folder, `file-${status.modelCalls}.txt`))).toBe(true);
  expect((await labels(job)).slice(-2)).toEqual(['turn_end', 'agent_end']);
});

test('R20: a kept-open job whose budget is spent ends when the next message arrives, with no model call', async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [
    { stopReason: 'stop', content: [text('first answer')] },
    { stopReason: 'stop', content: [text('never asked for')] },
  ]);
  const job = await startTestJob(
    server,
    jobInput({ model, workspace: folder, keepOpenMs: 60_000, budget: { maxTurns: 1 } }),
  );
  await waitForPhase(job, 'waiting');
  await job.followUp('one more question');
  const ending = await jobEnding(job);
  expect(ending.budgetExceeded).toEqual({ limit: 'turns', used: 1, max: 1 });
  expect(exitCodeFor(ending)).toBe(3);
  expect((await job.status()).modelCalls).toBe(1);
  const events = await labels(job);
  expect(events.filter((type) => type === 'agent_start')).toHaveLength(1);
  expect(events.at(-1)).toBe('agent_end');
});
