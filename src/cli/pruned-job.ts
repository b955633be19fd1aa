import type { Client } from '@temporalio/client';
import { storeHoldsNothingOfEndedJob } from '../client/deleted-job-data.js';
import type { JobStore } from '../store/job-store.js';

/**
 * Whether the job has ended and the store holds nothing of it (see
 * `storeHoldsNothingOfEndedJob`). Asked only once reading the job found nothing, so a job of
 * the first release (its events in its history) is never taken for one.
 */
export async function jobDataDeleted(
  connection: { store: JobStore; client: Client },
  jobId: string,
): Promise<boolean> {
  const description = await connection.client.workflow.getHandle(jobId).describe();
  return storeHoldsNothingOfEndedJob(connection.store, description);
}

/** What `dar events` and `dar status` say of such a job, on stderr. */
export function prunedJobNote(jobId: string): string {
  return (
    `Job ${jobId} has ended, and the job store holds nothing of it: its data was deleted ` +
    '(`dar prune`), or its workers used another store (DAR_STORE_URL).\n'
  );
}
