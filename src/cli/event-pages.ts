import type { SequencedEvent } from '../workflows/job-types.js';

/**
 * Where a reader of a job's events has got to: the seq of the last event passed on. Kept
 * across tries of the same read, so that a read tried again (on a worker of the command's own,
 * say) passes on no event twice.
 */
export interface EventCursor {
  seq: number;
}

export interface PassEventPagesOptions {
  /** Stop after the first `agent_end`, as a follower does. */
  stopAtEnd?: boolean;
  /** Once aborted (the reader of the output went away), no further page is read. */
  signal?: AbortSignal;
}

/**
 * Passes on a job's events page by page as they are read, from `cursor.seq` until a page is
 * empty: memory stays within a page however long the job ran, and the first events show before
 * the last page is read. Returns true when it stopped at an `agent_end` (`stopAtEnd`).
 */
export async function passEventPages(
  readPage: (afterSeq: number) => Promise<SequencedEvent[]>,
  cursor: EventCursor,
  onEvent: (event: SequencedEvent) => void,
  { stopAtEnd = false, signal }: PassEventPagesOptions = {},
): Promise<boolean> {
  while (!signal?.aborted) {
    const page = await readPage(cursor.seq);
    if (page.length === 0) return false;
    for (const event of page) {
      if (event.seq <= cursor.seq) continue;
      onEvent(event);
      cursor.seq = event.seq;
      if (stopAtEnd && event.type === 'agent_end') return true;
    }
  }
  return false;
}
