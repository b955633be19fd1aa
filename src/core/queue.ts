import type { Message } from './messages.js';

/**
 * How many queued messages one read of a steering or follow-up queue delivers (Pi's
 * `QueueMode`): `one-at-a-time` (Pi's default) the oldest only, so each turn gets one and the
 * model answers them in order; `all` every queued message at once.
 */
export type QueueMode = 'all' | 'one-at-a-time';

/** Pi's default delivery of both queues. */
export const DEFAULT_QUEUE_MODE: QueueMode = 'one-at-a-time';

/** Removes and returns what one read of `queue` delivers in `mode`; the rest stays queued. */
export function drainQueue(queue: Message[], mode: QueueMode): Message[] {
  return mode === 'all' ? queue.splice(0) : queue.splice(0, 1);
}
