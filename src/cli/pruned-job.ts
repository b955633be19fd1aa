import type { Client } from '@temporalio/client';
import { JOB_STATUS_RECORD } from '../activities/job-status-record.js';
import type { JobStore } from '../store/job-store.js';

/** The most events a job's history has when it closed before any worker took a task of it. */
const NEVER_RAN_HISTORY_LENGTH = 3;

/**
 * Whether the job has ended and the store holds neither its status nor an event: its data was
 * deleted (`dar prune`), or its workers wrote to another store. A job of the first release,
 * which wrote nothing to the store, has events in its history: callers ask only once reading
 * those found none.
 */
export async function storeHoldsNothingOfEndedJob(
  connection: { store: JobStore; client: Client },
  jobId: string,
): Promise<boolean> {
  const description = await connection.client.workflow.getHandle(jobId).describe();
  if (description.status.name === 'RUNNING') return false;
  // Started, its first task scheduled, then closed (terminated, timed out): no worker ran it,
  // so it stored nothing.
  if (description.historyLength <= NEVER_RAN_HISTORY_LENGTH) return false;
  const status = await connection.store.getRecord(JOB_STATUS_RECORD, jobId);
  return status === undefined && (await connection.store.lastSeq(jobId)) === 0;
}

/** What `dar events` and `dar status` say of such a job, on stderr. */
export function prunedJobNote(jobId: string): string {
  return (
    `Job ${jobId} has ended, and the job store holds nothing of it: its data was deleted ` +
    '(`dar prune`), or its workers used another store (DAR_STORE_URL).\n'
  );
}
