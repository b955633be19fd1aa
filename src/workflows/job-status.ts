import type { AssistantMessage } from '../core/index.js';
import type { JobStatus } from './job-types.js';
import type { JobState } from './job-state.js';
import { pendingApprovals } from './approval-state.js';

/** The job's status: what the status query answers and what the store's status record holds. */
export function jobStatus(state: JobState, cancelled: boolean): JobStatus {
  const last =
    state.phase === 'done'
      ? state.messages.findLast(
          (message): message is AssistantMessage => message.role === 'assistant',
        )
      : undefined;
  return {
    phase: state.phase,
    turns: state.modelCalls,
    modelCalls: state.modelCalls + state.compactionCalls,
    lastSeq: state.lastSeq,
    stopReason: last?.stopReason,
    errorMessage: last?.errorMessage,
    cancelled,
    usage: state.usage,
    continuedAsNew: state.runs,
    ...(state.budget ? { budget: state.budget, startedAt: state.startedAt } : {}),
    ...(state.budgetExceeded ? { budgetExceeded: state.budgetExceeded } : {}),
    ...(state.compactions > 0 ? { compactions: state.compactions } : {}),
    ...pendingCount(state),
  };
}

function pendingCount(state: JobState): { pendingApprovals?: number } {
  const pending = pendingApprovals(state).length;
  return pending > 0 ? { pendingApprovals: pending } : {};
}
