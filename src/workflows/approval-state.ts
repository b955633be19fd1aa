import type { JobApproval } from './approval-types.js';
import type { JobState } from './job-state.js';

/** The calls of the job that wait for a decision now, oldest first. */
export function pendingApprovals(state: JobState): JobApproval[] {
  return state.approvals.filter((approval) => approval.outcome === undefined);
}

/**
 * The phase while tools run: `approval` as long as one call waits for a decision (R22), which
 * is what `DarPhase = 'approval'` finds; `tools` otherwise.
 */
export function toolsPhase(state: JobState): 'tools' | 'approval' {
  return pendingApprovals(state).length > 0 ? 'approval' : 'tools';
}
