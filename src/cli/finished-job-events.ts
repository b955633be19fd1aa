import { readStoredEvents, readStoredStatus } from '../client/stored-job-reads.js';
import type { JobStore } from '../store/job-store.js';
import { cachedReader } from '../transcript/cached-reader.js';
import type { SequencedEvent } from '../workflows/job-types.js';
import { passEventPages, type PassEventPagesOptions } from './event-pages.js';

/**
 * Passes on, page by page as they are read (`passEventPages`), the events after `afterSeq` of
 * a job that the store says has ended, read from the store alone: no Temporal call, no server
 * to start, no worker. A job writes phase `done` to its status record after its last event, so
 * the stream is whole then. A page is bounded (`readStoredEvents`).
 *
 * Returns false, having passed on nothing, when the store does not say the job ended (it runs,
 * waits for a message, has not started, or is a first-release job that writes nothing to the
 * store): the caller asks Temporal instead.
 */
export async function passFinishedJobEvents(
  store: JobStore,
  jobId: string,
  afterSeq: number,
  onEvent: (event: SequencedEvent) => void,
  options: PassEventPagesOptions = {},
): Promise<boolean> {
  const status = await readStoredStatus(store, jobId);
  if (status?.phase !== 'done') return false;
  const read = cachedReader(store);
  const readPage = (seq: number) => readStoredEvents(store, read, jobId, seq);
  await passEventPages(readPage, { seq: afterSeq }, onEvent, options);
  return true;
}
