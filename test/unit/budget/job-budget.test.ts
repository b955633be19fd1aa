import { emptyUsage, type Usage } from '../../../src/core/index.js';
import { parseBudgetFlags } from '../../../src/job-input/budget-flags.js';
import { parseDuration } from '../../../src/job-input/duration.js';
import { UsageError } from '../../../src/job-input/usage-error.js';
import { exitCodeFor } from '../../../src/cli/commands/run.js';
import { budgetSpentNow } from '../../../src/workflows/budget-stop.js';
import { budgetMessage, isBudgetExceeded, spentBudget } from '../../../src/workflows/job-budget.js';
import { jobInputProblems } from '../../../src/workflows/job-input-schema.js';
import { jobOutcome } from '../../../src/workflows/job-outcome.js';
import { initialJobState } from '../../../src/workflows/job-state.js';
import { jobStatus } from '../../../src/workflows/job-status.js';
import type { JobStatus } from '../../../src/workflows/job-types.js';

function usage(totalTokens: number, cost: number): Usage {
  const empty = emptyUsage();
  return { ...empty, totalTokens, cost: { ...empty.cost, total: cost } };
}

const use = (turns: number, tokens = 0, cost = 0, elapsedMs = 0) => ({
  turns,
  usage: usage(tokens, cost),
  elapsedMs,
});

describe('spentBudget: may the next model call start?', () => {
  test('turns: the call that would exceed maxTurns is refused', () => {
    expect(spentBudget({ maxTurns: 3 }, use(2))).toBeUndefined();
    expect(spentBudget({ maxTurns: 3 }, use(3))).toEqual({ limit: 'turns', used: 3, max: 3 });
  });

  test('tokens, cost and wall time: reached once used is at the limit or over it', () => {
    expect(spentBudget({ maxTokens: 100 }, use(1, 99))).toBeUndefined();
    expect(spentBudget({ maxTokens: 100 }, use(1, 130))).toEqual({
      limit: 'tokens',
      used: 130,
      max: 100,
    });
    expect(spentBudget({ maxCostUsd: 0.5 }, use(1, 0, 0.49))).toBeUndefined();
    expect(spentBudget({ maxCostUsd: 0.5 }, use(1, 0, 0.5))?.limit).toBe('cost');
    expect(spentBudget({ maxWallTimeMs: 1000 }, use(1, 0, 0, 999))).toBeUndefined();
    expect(spentBudget({ maxWallTimeMs: 1000 }, use(1, 0, 0, 1000))?.limit).toBe('wallTime');
  });

  test('several limits reached: the first of turns, tokens, cost, wall time is named', () => {
    const budget = { maxTurns: 1, maxTokens: 1, maxCostUsd: 1, maxWallTimeMs: 1 };
    expect(spentBudget(budget, use(5, 5, 5, 5))?.limit).toBe('turns');
    expect(spentBudget({ ...budget, maxTurns: 9 }, use(5, 5, 5, 5))?.limit).toBe('tokens');
    expect(spentBudget({}, use(1000, 1e9, 1e9, 1e9))).toBeUndefined();
  });

  test('budgetMessage names the limit, the use and the maximum', () => {
    expect(budgetMessage({ limit: 'turns', used: 3, max: 3 })).toBe(
      'Budget exceeded: turns 3 of 3',
    );
  });
});

describe('budgetSpentNow: the workflow-side check records why it stopped', () => {
  test('a job without a budget is never stopped; one with a spent budget keeps the reason', () => {
    const state = initialJobState(undefined, Date.now());
    state.modelCalls = 50;
    expect(budgetSpentNow(state)).toBe(false);
    state.budget = { maxTurns: 2 };
    expect(budgetSpentNow(state)).toBe(true);
    expect(state.budgetExceeded).toEqual({ limit: 'turns', used: 50, max: 2 });
    expect(jobStatus(state, false)).toMatchObject({
      budget: { maxTurns: 2 },
      budgetExceeded: { limit: 'turns', used: 50, max: 2 },
    });
  });

  test('the start time is carried across continue-as-new, not taken from the new run', () => {
    const carried = initialJobState(undefined, 1000);
    const state = initialJobState(
      { ...carried, pending: [], startedAt: carried.startedAt },
      999_999,
    );
    expect(state.startedAt).toBe(1000);
  });
});

function status(partial: Partial<JobStatus>): JobStatus {
  return {
    phase: 'done',
    turns: 3,
    modelCalls: 3,
    lastSeq: 9,
    cancelled: false,
    usage: emptyUsage(),
    continuedAsNew: 0,
    ...partial,
  };
}

describe('outcome and exit code of a budget stop', () => {
  const budgetExceeded = { limit: 'turns' as const, used: 3, max: 3 };

  test('a job its budget stopped failed, saying which limit; dar run exits 3', () => {
    const outcome = jobOutcome(status({ stopReason: 'toolUse', budgetExceeded }), []);
    expect(outcome).toEqual({
      status: 'failed',
      text: '',
      error: 'Budget exceeded: turns 3 of 3',
      budgetExceeded,
    });
    expect(exitCodeFor(outcome)).toBe(3);
  });

  test('cancellation wins over a budget stop; the other exit codes stay as they were', () => {
    const cancelled = jobOutcome(status({ cancelled: true, budgetExceeded }), []);
    expect(cancelled.status).toBe('cancelled');
    expect(exitCodeFor(cancelled)).toBe(130);
    expect(exitCodeFor({ status: 'failed', text: '', error: 'x' })).toBe(1);
    expect(exitCodeFor({ status: 'completed', text: 'ok' })).toBe(0);
  });
});

describe('budget flags and the input schema', () => {
  test('durations: 90s, 30m, 2h, 1.5h, 500ms; anything else is refused', () => {
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('30m')).toBe(1_800_000);
    expect(parseDuration('2h')).toBe(7_200_000);
    expect(parseDuration('1.5h')).toBe(5_400_000);
    expect(parseDuration('500ms')).toBe(500);
    for (const bad of ['', '30', '0s', '-1m', '1d', 'm', '1 h', 'abc']) {
      expect(parseDuration(bad)).toBeUndefined();
    }
  });

  test('flags become a budget; none gives none', () => {
    expect(parseBudgetFlags({})).toBeUndefined();
    expect(
      parseBudgetFlags({ maxTurns: '5', maxTokens: '20000', maxCost: '0.25', maxTime: '30m' }),
    ).toEqual({ maxTurns: 5, maxTokens: 20000, maxCostUsd: 0.25, maxWallTimeMs: 1_800_000 });
  });

  test.each([
    [{ maxTurns: '0' }, '--max-turns'],
    [{ maxTurns: '2.5' }, '--max-turns'],
    [{ maxTokens: 'lots' }, '--max-tokens'],
    [{ maxCost: '-1' }, '--max-cost'],
    [{ maxCost: '0' }, '--max-cost'],
    [{ maxTime: '10' }, '--max-time'],
    [{ maxTime: '876001h' }, '--max-time must be at most 100 years, not "876001h"'],
  ])('a bad value (%j) is a usage error naming its flag', (flags, flag) => {
    expect(() => parseBudgetFlags(flags)).toThrow(UsageError);
    expect(() => parseBudgetFlags(flags)).toThrow(flag);
  });

  test('the schema takes positive limits and refuses others and unknown keys', () => {
    const input = { prompt: 'p', model: 'scripted:/s.json', workspace: '/w', tools: [] };
    expect(jobInputProblems({ ...input, budget: { maxTurns: 2, maxCostUsd: 0.1 } })).toEqual([]);
    expect(jobInputProblems({ ...input, budget: { maxTurns: 0 } })).toEqual([
      'budget.maxTurns: must be >= 1',
    ]);
    expect(jobInputProblems({ ...input, budget: { maxCostUsd: 0 } })).toEqual([
      'budget.maxCostUsd: must be > 0',
    ]);
    expect(jobInputProblems({ ...input, budget: { maxTurn: 2 } })).toEqual([
      'budget.maxTurn: is not a known field',
    ]);
  });
});

test('R20: a stop the batch asks for ends the job only before another model call, with the batch reason', () => {
  const state = initialJobState(undefined, 1000);
  expect(budgetSpentNow(state)).toBe(false);
  state.batchStop = { limit: 'tokens', used: 5200, max: 5000, scope: 'batch' };
  // Noted, not yet applied: a job whose final answer came first completed.
  expect(state.budgetExceeded).toBeUndefined();
  expect(budgetSpentNow(state)).toBe(true);
  expect(state.budgetExceeded).toEqual(state.batchStop);
  const outcome = jobOutcome(jobStatus(state, false), []);
  expect(outcome).toMatchObject({
    status: 'failed',
    error: 'Batch budget exceeded: tokens 5200 of 5000',
  });
  expect(budgetMessage({ limit: 'turns', used: 3, max: 3 })).toBe('Budget exceeded: turns 3 of 3');
});

test('a batch stop signal payload is checked before it is used', () => {
  expect(isBudgetExceeded({ limit: 'cost', used: 1.2, max: 1 })).toBe(true);
  expect(isBudgetExceeded({ limit: 'toString', used: 1, max: 1 })).toBe(false);
  expect(isBudgetExceeded({ limit: 'turns', used: '3', max: 3 })).toBe(false);
  expect(isBudgetExceeded(null)).toBe(false);
});
