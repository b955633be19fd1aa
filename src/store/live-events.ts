import type { ReadEventsOptions, StoredEvent } from './references.js';

/**
 * A job's live stream: short-lived events written by activities while they work (token deltas
 * of a model call, output lines of a bash command), beside the job's event stream. The
 * workflow numbers its own events; activities cannot take those numbers, so the live stream
 * has its own, given by the store. Nothing here is durable in the workflow's sense: a live
 * event may be lost (the writer ignores failures) and is dropped once the workflow's own event
 * for the same thing (`message_end`, `tool_execution_end`) is stored.
 */
export interface LiveEventStore {
  /**
   * Appends events to the job's live stream and returns the seqs the store gave them, in order.
   * Contract: seqs are positive, increasing, gapless in the order followers can see them (a
   * reader of seqs above N never sees N + 2 before N + 1), and never reused, also after
   * `dropLiveEvents`. Not idempotent: appending again appends again. Several writers of one job
   * may append at once; each writer's events keep their order.
   */
  appendLiveEvents(jobId: string, events: readonly unknown[]): Promise<number[]>;

  /** A page of the job's live events above `afterSeq`, in seq order, bounded like `readEvents`. */
  readLiveEvents(jobId: string, options?: ReadEventsOptions): Promise<StoredEvent[]>;

  /** Deletes the job's live events with seqs up to `upToSeq`; later appends keep counting. */
  dropLiveEvents(jobId: string, upToSeq: number): Promise<void>;
}
