import type { WorkflowExecutionDescription } from '@temporalio/client';
import { JOB_STATUS_RECORD } from '../activities/job-status-record.js';
import type { JobStore } from '../store/job-store.js';

/** The most events a job's history has when it closed before any worker took a task of it. */
const NEVER_RAN_HISTORY_LENGTH = 3;

/**
 * Whether a job that ran has ended and the store holds neither its status nor an event: its
 * data was deleted (`dar prune`), or its workers wrote to another store. A job closed before
 * any worker ran it stored nothing and is not one. A job of the first release wrote nothing to
 * the store either: callers rule it out first (its events are in its history).
 */
export async function storeHoldsNothingOfEndedJob(
  store: JobStore,
  description: WorkflowExecutionDescription,
): Promise<boolean> {
  if (description.status.name === 'RUNNING') return false;
  if (description.historyLength <= NEVER_RAN_HISTORY_LENGTH) return false;
  const status = await store.getRecord(JOB_STATUS_RECORD, description.workflowId);
  return status === undefined && (await store.lastSeq(description.workflowId)) === 0;
}
