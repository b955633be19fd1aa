import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { describeStoreError, isRetryableStoreError } from '../store/store-errors.js';
import { heartbeatWhile } from './heartbeat-while.js';

/** Error type of a store that could not be reached in time; the activity may be retried. */
export const STORE_UNAVAILABLE = 'StoreUnavailable';

const FIRST_DELAY_MS = 500;
// Below the shortest heartbeat timeout of any activity (10 s for file tools and bash).
const LONGEST_DELAY_MS = 4000;

/**
 * Runs a store operation inside an activity, waiting out an outage: a retryable store error is
 * tried again with backoff, heartbeating meanwhile (and while each try runs), until it works or the activity is cancelled
 * or times out. Used where a retry of the whole activity would cost something (a model call
 * that was already paid for, a tool body that already ran). Other store errors fail the
 * activity at once (non-retryable): they are bugs or bad settings, not outages.
 */
export async function withStoreRetry<T>(operation: () => Promise<T>): Promise<T> {
  const context = Context.current();
  let delay = FIRST_DELAY_MS;
  for (;;) {
    try {
      // A statement can wait long on a busy database: the activity must still look alive.
      return await heartbeatWhile(operation);
    } catch (error) {
      if (!isRetryableStoreError(error)) {
        throw ApplicationFailure.nonRetryable(
          `Job store: ${describeStoreError(error)}`,
          'JobStoreError',
        );
      }
      const message = error instanceof Error ? error.message : String(error);
      context.heartbeat({ waitingForStore: message });
      try {
        await context.sleep(delay);
      } catch {
        // Cancelled or timed out while waiting: let Temporal retry the activity later.
        throw ApplicationFailure.retryable(`Job store unavailable: ${message}`, STORE_UNAVAILABLE);
      }
      delay = Math.min(delay * 2, LONGEST_DELAY_MS);
    }
  }
}
