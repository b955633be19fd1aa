import { formatDuration } from '../batch/progress-summary.js';
import { budgetMessage } from '../workflows/job-budget.js';
import type { JobStatus } from '../workflows/job-types.js';

/**
 * `turns 2/5  tokens 1200/5000  cost $0.0100/$1.0000  time 1:20/30:00`: what the job used of
 * each limit it has. `elapsedMs` is the job's wall time so far (to its close, for a closed job).
 */
export function budgetUsageLine(status: JobStatus, elapsedMs: number): string | undefined {
  const budget = status.budget;
  if (!budget) return undefined;
  const parts: string[] = [];
  if (budget.maxTurns !== undefined) parts.push(`turns ${status.turns}/${budget.maxTurns}`);
  if (budget.maxTokens !== undefined) {
    parts.push(`tokens ${status.usage.totalTokens}/${budget.maxTokens}`);
  }
  if (budget.maxCostUsd !== undefined) {
    parts.push(`cost $${status.usage.cost.total.toFixed(4)}/$${budget.maxCostUsd.toFixed(4)}`);
  }
  if (budget.maxWallTimeMs !== undefined) {
    parts.push(`time ${formatDuration(elapsedMs)}/${formatDuration(budget.maxWallTimeMs)}`);
  }
  return parts.join('  ');
}

/** `Budget exceeded: turns 5 of 5`, when the budget stopped the job. */
export function budgetStopLine(status: JobStatus): string | undefined {
  return status.budgetExceeded ? budgetMessage(status.budgetExceeded) : undefined;
}
