import { readAllStoredEvents, readStoredStatus } from '../client/stored-job-reads.js';
import type { JobStore } from '../store/job-store.js';
import { cachedReader } from '../transcript/cached-reader.js';
import type { SequencedEvent } from '../workflows/job-types.js';

/**
 * The events after `afterSeq` of a job that the store says has ended, read from the store alone:
 * no Temporal call, no server to start, no worker. A job writes phase `done` to its status
 * record after its last event, so the stream is whole then. Undefined when the store does not
 * say the job ended (it runs, waits for a message, has not started, or is a first-release job
 * that writes nothing to the store): the caller asks Temporal instead.
 */
export async function finishedJobEvents(
  store: JobStore,
  jobId: string,
  afterSeq: number,
): Promise<SequencedEvent[] | undefined> {
  const status = await readStoredStatus(store, jobId);
  if (status?.phase !== 'done') return undefined;
  return readAllStoredEvents(store, cachedReader(store), jobId, afterSeq);
}

/** The events a follower prints: up to and including the first `agent_end`, where it stops. */
export function upToFirstEnd(events: readonly SequencedEvent[]): SequencedEvent[] {
  const end = events.findIndex((event) => event.type === 'agent_end');
  return end === -1 ? [...events] : events.slice(0, end + 1);
}
