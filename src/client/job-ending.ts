import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import type { Message } from '../core/index.js';
import type { ObjectRef } from '../store/references.js';
import { finalText, jobOutcome, type JobOutcome } from '../workflows/job-outcome.js';
import type { AgentJobResult } from '../workflows/job-types.js';
import type { AgentJob } from './job-client.js';

export interface JobEnding extends JobOutcome {
  /** The job's result, when it returned one (not for a cancelled or failed workflow). */
  result?: AgentJobResult;
}

/** The final answer's text: from the stored final message, or from a first-release result. */
async function textOf(job: AgentJob, result: AgentJobResult): Promise<string> {
  if (result.messages) return finalText(result.messages);
  if (result.finalMessageRef === undefined || !job.store) return '';
  const message = await job.store.getObject(result.finalMessageRef as ObjectRef);
  return finalText([message as unknown as Message]);
}

/**
 * Waits for a job to close (following continue-as-new) and says how it ended: the outcome its
 * run decided, `cancelled` for a cancelled workflow, `failed` for a workflow that failed (bad
 * input, say). Throws only when Temporal (or the job store) cannot be reached.
 */
export async function jobEnding(job: AgentJob): Promise<JobEnding> {
  let result: AgentJobResult;
  try {
    result = (await job.handle.result()) as AgentJobResult;
  } catch (error) {
    if (!(error instanceof WorkflowFailedError)) throw error;
    if (error.cause instanceof CancelledFailure) return { status: 'cancelled', text: '' };
    return { status: 'failed', text: '', error: error.cause?.message ?? error.message };
  }
  const outcome = result.outcome ?? jobOutcome(result.status, result.messages ?? []);
  return { ...outcome, text: await textOf(job, result), result };
}
