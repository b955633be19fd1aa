import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { jobOutcome, type JobOutcome } from '../workflows/job-outcome.js';
import type { AgentJobResult } from '../workflows/job-types.js';

export interface JobEnding extends JobOutcome {
  /** The job's result, when it returned one (not for a cancelled or failed workflow). */
  result?: AgentJobResult;
}

/**
 * Waits for a job to close (following continue-as-new) and says how it ended: the outcome its
 * run decided, `cancelled` for a cancelled workflow, `failed` for a workflow that failed (bad
 * input, say). Throws only when Temporal cannot be reached.
 */
export async function jobEnding(handle: WorkflowHandle): Promise<JobEnding> {
  try {
    const result = (await handle.result()) as AgentJobResult;
    return { ...(result.outcome ?? jobOutcome(result.status, result.messages)), result };
  } catch (error) {
    if (!(error instanceof WorkflowFailedError)) throw error;
    if (error.cause instanceof CancelledFailure) return { status: 'cancelled', text: '' };
    return { status: 'failed', text: '', error: error.cause?.message ?? error.message };
  }
}
