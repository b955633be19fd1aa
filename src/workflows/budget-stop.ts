import { spentBudget } from './job-budget.js';
import type { JobState } from './job-state.js';

/**
 * Asked in workflow code before a model call would start: true when the job's budget is spent,
 * with the limit recorded in `state.budgetExceeded` (kept once set). Uses workflow time, so it
 * decides the same way on replay (R23). A job without a budget stops only when its batch's budget
 * is spent (`state.batchStop`).
 */
export function budgetSpentNow(state: JobState): boolean {
  if (state.budgetExceeded) return true;
  // A stop the batch asked for counts only here, before another model call: a job that has
  // already given its final answer completed.
  if (state.batchStop) {
    state.budgetExceeded = state.batchStop;
    return true;
  }
  if (!state.budget) return false;
  state.budgetExceeded = spentBudget(state.budget, {
    turns: state.modelCalls,
    usage: state.usage,
    elapsedMs: Date.now() - state.startedAt,
  });
  return state.budgetExceeded !== undefined;
}
