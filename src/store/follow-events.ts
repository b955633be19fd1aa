import { setTimeout as sleep } from 'node:timers/promises';
import type { StoredEvent } from './references.js';

/** How often a follower looks for new events when it has seen them all. */
export const DEFAULT_FOLLOW_INTERVAL_MS = 250;

/**
 * Tails a stream by polling `readPage` (events above a seq, in order): yields what is there,
 * then waits `intervalMs` whenever a page comes back empty. Ends when `signal` aborts.
 */
export async function* pollEvents(
  readPage: (afterSeq: number) => Promise<StoredEvent[]>,
  afterSeq: number,
  signal: AbortSignal,
  intervalMs: number,
): AsyncGenerator<StoredEvent, void, undefined> {
  let cursor = afterSeq;
  while (!signal.aborted) {
    const page = await readPage(cursor);
    for (const stored of page) {
      if (signal.aborted) return;
      cursor = stored.seq;
      yield stored;
    }
    if (page.length === 0 && !(await waitUnlessAborted(intervalMs, signal))) return;
  }
}

/** Waits; false when the signal aborted first. */
async function waitUnlessAborted(milliseconds: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(milliseconds, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}
