import { budgetStopLine, budgetUsageLine } from '../../../src/cli/budget-format.js';
import { emptyUsage } from '../../../src/core/index.js';
import type { JobStatus } from '../../../src/workflows/job-types.js';

function status(partial: Partial<JobStatus>): JobStatus {
  const usage = emptyUsage();
  return {
    phase: 'done',
    turns: 2,
    modelCalls: 2,
    lastSeq: 9,
    cancelled: false,
    usage: { ...usage, totalTokens: 900, cost: { ...usage.cost, total: 0.01 } },
    continuedAsNew: 0,
    ...partial,
  };
}

test('dar status: usage against each limit the job has, and why the budget stopped it', () => {
  expect(budgetUsageLine(status({}), 80_000)).toBeUndefined();
  expect(
    budgetUsageLine(
      status({
        budget: { maxTurns: 5, maxTokens: 5000, maxCostUsd: 1, maxWallTimeMs: 1_800_000 },
      }),
      80_000,
    ),
  ).toBe('turns 2/5  tokens 900/5000  cost $0.0100/$1.0000  time 1:20/30:00');
  expect(budgetUsageLine(status({ budget: { maxTokens: 800 } }), 0)).toBe('tokens 900/800');
  expect(budgetStopLine(status({}))).toBeUndefined();
  expect(budgetStopLine(status({ budgetExceeded: { limit: 'tokens', used: 900, max: 800 } }))).toBe(
    'Budget exceeded: tokens 900 of 800',
  );
});
