import { setTimeout as sleep } from 'node:timers/promises';
import type { StoredEvent } from './references.js';

/** How a follower polls. */
export interface FollowOptions {
  /** How often to look for new events once every stored one was seen (default 250 ms). */
  intervalMs?: number;
  /**
   * How long to wait for a missing seq before going past it (default 1000 ms). Seqs are
   * numbered without gaps, but two writers of one job can finish out of order (a later seq
   * visible before an earlier one); a follower that went straight past the gap would never
   * see the earlier event.
   */
  gapWaitMs?: number;
}

const DEFAULT_INTERVAL_MS = 250;
const DEFAULT_GAP_WAIT_MS = 1000;

/**
 * Tails a stream by polling `readPage` (events above a seq, in order): yields what is there,
 * in seq order, then waits whenever it has nothing new. Ends when `signal` aborts.
 */
export async function* pollEvents(
  readPage: (afterSeq: number) => Promise<StoredEvent[]>,
  afterSeq: number,
  signal: AbortSignal,
  options: FollowOptions = {},
  wait: WaitForEvents = waitUnlessAborted,
): AsyncGenerator<StoredEvent, void, undefined> {
  const intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  const gapWaitMs = options.gapWaitMs ?? DEFAULT_GAP_WAIT_MS;
  let cursor = afterSeq;
  let gapSeenAt: number | undefined;
  while (!signal.aborted) {
    const page = await readPage(cursor);
    let advanced = false;
    for (const stored of page) {
      if (signal.aborted) return;
      if (stored.seq !== cursor + 1) {
        gapSeenAt ??= Date.now();
        if (Date.now() - gapSeenAt < gapWaitMs) break;
      }
      gapSeenAt = undefined;
      cursor = stored.seq;
      advanced = true;
      yield stored;
    }
    if (!advanced && !(await wait(intervalMs, signal))) return;
  }
}

/**
 * Waits up to `milliseconds` for new events (a backend that is told of appends resolves
 * earlier). Contract: resolves false when `signal` aborted, true otherwise; never rejects.
 */
export type WaitForEvents = (milliseconds: number, signal: AbortSignal) => Promise<boolean>;

/** Waits; false when the signal aborted first. */
async function waitUnlessAborted(milliseconds: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(milliseconds, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}
