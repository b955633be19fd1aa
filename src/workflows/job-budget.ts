import type { Usage } from '../core/index.js';

/** Limits on one job, counted across its runs and continue-as-new. Each is optional. */
export interface JobBudget {
  /** Model calls. */
  maxTurns?: number;
  /** Total tokens, as the providers report them. */
  maxTokens?: number;
  /** Cost in US dollars, as the providers report it. */
  maxCostUsd?: number;
  /** Milliseconds of workflow time since the job started. */
  maxWallTimeMs?: number;
}

export type BudgetLimit = 'turns' | 'tokens' | 'cost' | 'wallTime';

/** Which limit stopped a job, how much of it was used and what the limit was. */
export interface BudgetExceeded {
  limit: BudgetLimit;
  used: number;
  max: number;
  /**
   * `batch`: the budget of the job's batch (`dar batch --max-...`) was spent, and the batch
   * asked the job to stop; `used` and `max` are the batch's. Absent: the job's own budget.
   */
  scope?: 'batch';
}

/** What a job has used so far. */
export interface BudgetUse {
  turns: number;
  usage: Usage;
  elapsedMs: number;
}

/**
 * The first limit the job has reached, if any, in the order turns, tokens, cost, wall time. Asked
 * before a model call: a reached limit means the call must not start (for turns: the call would
 * exceed `maxTurns`). Pure and deterministic; the workflow passes workflow time.
 */
export function spentBudget(budget: JobBudget, use: BudgetUse): BudgetExceeded | undefined {
  const checks: [BudgetLimit, number, number | undefined][] = [
    ['turns', use.turns, budget.maxTurns],
    ['tokens', use.usage.totalTokens, budget.maxTokens],
    ['cost', use.usage.cost.total, budget.maxCostUsd],
    ['wallTime', use.elapsedMs, budget.maxWallTimeMs],
  ];
  for (const [limit, used, max] of checks) {
    if (max !== undefined && used >= max) return { limit, used, max };
  }
  return undefined;
}

const LIMIT_NAMES: Record<BudgetLimit, string> = {
  turns: 'turns',
  tokens: 'tokens',
  cost: 'cost (USD)',
  wallTime: 'wall time (ms)',
};

/**
 * `Budget exceeded: turns 3 of 3`, the error text of a job stopped by its budget;
 * `Batch budget exceeded: tokens 5200 of 5000` for one its batch's budget stopped.
 */
export function budgetMessage({ limit, used, max, scope }: BudgetExceeded): string {
  const whose = scope === 'batch' ? 'Batch budget' : 'Budget';
  return `${whose} exceeded: ${LIMIT_NAMES[limit]} ${used} of ${max}`;
}

/** Whether a value (a signal's payload, say) is a {@link BudgetExceeded}. */
export function isBudgetExceeded(value: unknown): value is BudgetExceeded {
  if (typeof value !== 'object' || value === null) return false;
  const { limit, used, max } = value as Record<string, unknown>;
  return (
    typeof limit === 'string' &&
    Object.hasOwn(LIMIT_NAMES, limit) &&
    typeof used === 'number' &&
    typeof max === 'number'
  );
}
