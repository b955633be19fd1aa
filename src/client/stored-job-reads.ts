import { JOB_STATUS_RECORD, type StoredJobStatus } from '../activities/job-status-record.js';
import type { JobStore } from '../store/job-store.js';
import { hydrateEvent } from '../transcript/hydrate-event.js';
import type { ReadObject } from '../transcript/transcript-nodes.js';
import type { SequencedEvent } from '../workflows/job-types.js';

// Reads of a job that need the job store only: no Temporal client, no worker. Kept light to
// load, so that `dar events` on a finished job starts and answers at once.

/** Events per page read from the store. */
export const EVENT_PAGE_SIZE = 500;
/** Bytes per page read from the store: a page of huge events stays readable. */
export const EVENT_PAGE_BYTES = 8 * 1024 * 1024;

/** The status the job last wrote to the store; undefined before its first write. */
export async function readStoredStatus(
  store: JobStore,
  jobId: string,
): Promise<StoredJobStatus | undefined> {
  const record = await store.getRecord(JOB_STATUS_RECORD, jobId);
  return record === undefined ? undefined : (record as unknown as StoredJobStatus);
}

/** One page of the job's stored events after `afterSeq` (at most `limit`), in order, whole. */
export async function readStoredEvents(
  store: JobStore,
  read: ReadObject,
  jobId: string,
  afterSeq = 0,
  limit = EVENT_PAGE_SIZE,
): Promise<SequencedEvent[]> {
  const page = await store.readEvents(jobId, { afterSeq, limit, maxBytes: EVENT_PAGE_BYTES });
  return Promise.all(page.map((stored) => hydrateEvent(read, stored.seq, stored.event)));
}
