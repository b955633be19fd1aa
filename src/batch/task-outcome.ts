import type { Client, WorkflowHandle } from '@temporalio/client';
import { AgentJob } from '../client/job-client.js';
import { jobEnding } from '../client/job-ending.js';
import type { JobStore } from '../store/job-store.js';
import type { Usage } from '../core/index.js';
import type { JobOutcome, JobOutcomeStatus } from '../workflows/job-outcome.js';

export type TaskStatus = JobOutcomeStatus;

/** How a task's job ended, read from its workflow. */
export interface TaskOutcome extends JobOutcome {
  /** Tokens and cost of the whole job; null when the job's state could not be read. */
  usage: Usage | null;
  /** Model calls of the whole job; null when the job's state could not be read. */
  turns: number | null;
}

/** What a job used, as its status says. */
type JobSpend = Pick<TaskOutcome, 'usage' | 'turns'>;

/** How long reading the usage of a failed or cancelled job may take. */
const USAGE_QUERY_MS = 5000;

/**
 * A closed job has no result to read its usage from when it was cancelled or failed; its status
 * (in the store, or for a first-release job its query) still has it. Best effort: null when
 * it cannot be read.
 */
async function usageOfClosedJob(job: AgentJob, client: Client): Promise<JobSpend> {
  try {
    const status = await client.connection.withDeadline(Date.now() + USAGE_QUERY_MS, () =>
      job.status(),
    );
    return { usage: status.usage, turns: status.turns };
  } catch {
    return { usage: null, turns: null };
  }
}

/**
 * Waits for a task's job to close (following continue-as-new) and says how it ended. Throws only
 * when Temporal cannot be reached.
 */
export async function outcomeOf(
  client: Client,
  store: JobStore,
  handle: WorkflowHandle,
): Promise<TaskOutcome> {
  const job = new AgentJob(handle, store);
  const { result, ...outcome } = await jobEnding(job);
  const spend = result
    ? { usage: result.status.usage, turns: result.status.turns }
    : await usageOfClosedJob(job, client);
  return { ...outcome, ...spend };
}
