import { setTimeout as sleep } from 'node:timers/promises';
import { LiveFilter } from '../client/live-filter.js';
import { readStoredStatus } from '../client/stored-job-reads.js';
import { isLiveEvent, type SequencedLiveEvent } from '../live/live-events.js';
import type { JobStore } from '../store/job-store.js';
import { hydrateEvent } from '../transcript/hydrate-event.js';
import { eventView, viewWithoutReads, type EventView } from './event-view.js';
import type { ReadObject } from '../transcript/transcript-nodes.js';

/** Where a page is in a job's two streams: the last job event seq and live seq it got. */
export interface StreamCursor {
  seq: number;
  liveSeq: number;
}

/** One item of a job's merged stream. */
export type JobStreamItem =
  { kind: 'event'; view: EventView } | { kind: 'live'; event: SequencedLiveEvent };

/** How often both streams are read while nothing new is there. */
const POLL_MS = 100;
/** How long a missing job event seq is waited for before going past it (see `pollEvents`). */
const GAP_WAIT_MS = 1_000;

/**
 * A job's events and its live events (token deltas, tool output) as one stream, read by
 * polling the store until `signal` aborts: each page of job events, then the live events still
 * current (those of a message or tool call whose final event is not passed on yet, see
 * `LiveFilter`). `cursor` is updated as items are yielded, so that a reconnect can resume from
 * it with no gap and no duplicate.
 */
export async function* followJobStream(
  store: JobStore,
  read: ReadObject,
  jobId: string,
  cursor: StreamCursor,
  signal: AbortSignal,
): AsyncGenerator<JobStreamItem, void, undefined> {
  const filter = new LiveFilter();
  let gapSeenAt: number | undefined;
  while (!signal.aborted) {
    let advanced = false;
    for (const stored of await store.readEvents(jobId, { afterSeq: cursor.seq })) {
      if (stored.seq !== cursor.seq + 1) {
        gapSeenAt ??= Date.now();
        if (Date.now() - gapSeenAt < GAP_WAIT_MS) break;
      }
      gapSeenAt = undefined;
      // The live filter needs only the events that end a message or a tool call: never these.
      let view = viewWithoutReads(stored.seq, stored.event);
      if (!view) {
        const event = await hydrateEvent(read, stored.seq, stored.event);
        filter.noteEvent(event);
        view = eventView(event);
      }
      cursor.seq = stored.seq;
      advanced = true;
      yield { kind: 'event', view };
      if (signal.aborted) return;
    }
    const live = await store.readLiveEvents(jobId, { afterSeq: cursor.liveSeq });
    if (live.length > 0) {
      const status = await readStoredStatus(store, jobId);
      for (const stored of live) {
        cursor.liveSeq = stored.seq;
        advanced = true;
        if (!isLiveEvent(stored.event)) continue;
        const event = { ...stored.event, liveSeq: stored.seq } as SequencedLiveEvent;
        if (filter.isCurrent(event, status)) yield { kind: 'live', event };
        if (signal.aborted) return;
      }
    }
    if (advanced) continue;
    try {
      await sleep(POLL_MS, undefined, { signal });
    } catch {
      return;
    }
  }
}
