import { spentBatchBudget } from '../../../src/batch/batch-budget.js';
import type { TaskProgress } from '../../../src/batch/batch-runner.js';
import { emptyUsage, type Usage } from '../../../src/core/index.js';

function usage(totalTokens: number, cost: number): Usage {
  const empty = emptyUsage();
  return { ...empty, totalTokens, cost: { ...empty.cost, total: cost } };
}

function progress(id: string, partial: Partial<TaskProgress>): TaskProgress {
  return {
    task: { id, line: 1, input: { prompt: 'p', model: 'scripted:x', workspace: '/w', tools: [] } },
    workflowId: `batch-b-${id}`,
    state: 'queued',
    origin: 'started',
    attempt: 1,
    earlier: [],
    ...partial,
  };
}

const tasks = [
  // Finished, after a failed first attempt: both attempts count.
  progress('a', {
    state: 'completed',
    attempt: 2,
    earlier: [
      {
        attempt: 1,
        workflowId: 'batch-b-a',
        outcome: { status: 'failed', text: '', usage: usage(100, 0.1), turns: 1 },
      },
    ],
    outcome: { status: 'completed', text: 'ok', usage: usage(300, 0.2), turns: 3 },
  }),
  // Running: what was last read counts.
  progress('b', { state: 'running', live: { turns: 2, usage: usage(50, 0.05) } }),
  progress('c', {}),
];

test('a batch budget sums every attempt and running jobs, and says the batch spent it', () => {
  expect(spentBatchBudget({ maxTurns: 7 }, tasks, 0)).toBeUndefined();
  expect(spentBatchBudget({ maxTurns: 6 }, tasks, 0)).toEqual({
    limit: 'turns',
    used: 6,
    max: 6,
    scope: 'batch',
  });
  expect(spentBatchBudget({ maxTokens: 450 }, tasks, 0)).toMatchObject({ used: 450 });
  expect(spentBatchBudget({ maxCostUsd: 0.35 }, tasks, 0)?.limit).toBe('cost');
  expect(spentBatchBudget({ maxCostUsd: 0.36 }, tasks, 0)).toBeUndefined();
  expect(spentBatchBudget({ maxWallTimeMs: 1000 }, tasks, 999)).toBeUndefined();
  expect(spentBatchBudget({ maxWallTimeMs: 1000 }, tasks, 1000)?.limit).toBe('wallTime');
});
