import { Context } from '@temporalio/activity';

const HEARTBEAT_INTERVAL_MS = 1000;

/**
 * Runs `work` with a heartbeat every second, so that Temporal learns the activity is alive and
 * can deliver a cancellation to it (through `Context.current().cancellationSignal`). The first
 * comes after a second, not at once: each heartbeat is a write on the server, and most tool
 * bodies end sooner (such a call learns of a cancellation only by ending, which it soon does).
 */
export async function heartbeatWhile<T>(work: () => Promise<T>): Promise<T> {
  const context = Context.current();
  const timer = setInterval(() => context.heartbeat(), HEARTBEAT_INTERVAL_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
