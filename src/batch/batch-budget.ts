import { addUsage, emptyUsage, type Usage } from '../core/index.js';
import { spentBudget, type BudgetExceeded, type JobBudget } from '../workflows/job-budget.js';
import type { TaskProgress } from './batch-runner.js';

/**
 * Limits on a whole batch (`dar batch --max-turns/--max-tokens/--max-cost/--max-time`): turns,
 * tokens and cost summed over every attempt of every task, and the wall time of this `dar batch`
 * run. Same fields as a job's budget.
 */
export type BatchBudget = JobBudget;

/** What a batch has used: model calls and usage of its jobs, as last read. */
export interface BatchSpend {
  turns: number;
  usage: Usage;
}

/** What one task has used: its earlier attempts, then its outcome or, while it runs, its live use. */
export function taskSpend(progress: TaskProgress): BatchSpend {
  let turns = 0;
  let usage = emptyUsage();
  for (const { outcome } of progress.earlier) {
    turns += outcome.turns ?? 0;
    if (outcome.usage) usage = addUsage(usage, outcome.usage);
  }
  const current = progress.outcome
    ? { turns: progress.outcome.turns, usage: progress.outcome.usage }
    : progress.live;
  turns += current?.turns ?? 0;
  if (current?.usage) usage = addUsage(usage, current.usage);
  return { turns, usage };
}

export function batchSpend(tasks: readonly TaskProgress[]): BatchSpend {
  let turns = 0;
  let usage = emptyUsage();
  for (const progress of tasks) {
    const spend = taskSpend(progress);
    turns += spend.turns;
    usage = addUsage(usage, spend.usage);
  }
  return { turns, usage };
}

/** The first limit of the batch's budget it has reached, marked `scope: 'batch'`, if any. */
export function spentBatchBudget(
  budget: BatchBudget,
  tasks: readonly TaskProgress[],
  elapsedMs: number,
): BudgetExceeded | undefined {
  const exceeded = spentBudget(budget, { ...batchSpend(tasks), elapsedMs });
  return exceeded ? { ...exceeded, scope: 'batch' } : undefined;
}
