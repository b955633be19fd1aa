import { setHandler } from '@temporalio/workflow';
import { userMessage } from '../core/index.js';
import {
  batchBudgetSignal,
  followUpSignal,
  heldObjectsQuery,
  statusQuery,
  steerSignal,
} from './definitions.js';
import { heldObjectsOf } from './held-objects.js';
import { isBudgetExceeded } from './job-budget.js';
import type { JobState } from './job-state.js';
import type { AgentJobInput } from './job-types.js';
import { jobStatus } from './job-status.js';

/**
 * Installs the job's signal and query handlers. Signals only queue messages (R20) or
 * note that the batch's budget is spent. The status
 * query answers from memory, a few hundred bytes (the held objects query, at most a thousand
 * references); events and the transcript are read from the
 * job store, never through a query, so no reader can make the workflow answer a huge one.
 */
export function installJobHandlers(
  input: AgentJobInput,
  state: JobState,
  isAborted: () => boolean,
  isQuiet: () => boolean,
): void {
  setHandler(steerSignal, (text) => {
    state.steering.push(userMessage(text, Date.now()));
  });
  setHandler(followUpSignal, (text) => {
    state.followUps.push(userMessage(text, Date.now()));
  });
  // Only noted here: the job stops at its next turn boundary (see budgetSpentNow).
  setHandler(batchBudgetSignal, (exceeded) => {
    if (!isBudgetExceeded(exceeded) || state.batchStop) return;
    const { limit, used, max } = exceeded;
    state.batchStop = { limit, used, max, scope: 'batch' };
  });
  setHandler(statusQuery, () => jobStatus(state, isAborted()));
  setHandler(heldObjectsQuery, () => heldObjectsOf(input, state, isQuiet()));
}
