import { readStoredEvents, readStoredStatus } from '../client/stored-job-reads.js';
import type { JobStore } from '../store/job-store.js';
import { cachedReader } from '../transcript/cached-reader.js';
import type { SequencedEvent } from '../workflows/job-types.js';

/**
 * Passes on, page by page as they are read, the events after `afterSeq` of a job that the
 * store says has ended, read from the store alone: no Temporal call, no server to start, no
 * worker. A job writes phase `done` to its status record after its last event, so the stream
 * is whole then. A page is bounded (`readStoredEvents`), so memory stays bounded however long
 * the job ran, and the first lines show before the last page is read. With `stopAtEnd` it
 * stops after the first `agent_end`, as a follower does; once `signal` is aborted (the reader
 * of the output went away) it reads no further page.
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
  { stopAtEnd = false, signal }: { stopAtEnd?: boolean; signal?: AbortSignal } = {},
): Promise<boolean> {
  const status = await readStoredStatus(store, jobId);
  if (status?.phase !== 'done') return false;
  const read = cachedReader(store);
  let seq = afterSeq;
  while (!signal?.aborted) {
    const page = await readStoredEvents(store, read, jobId, seq);
    const last = page.at(-1);
    if (!last) return true;
    for (const event of page) {
      onEvent(event);
      if (stopAtEnd && event.type === 'agent_end') return true;
    }
    seq = last.seq;
  }
  return true;
}
