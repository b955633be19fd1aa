import { TimeoutType } from '@temporalio/common';
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';
import type { ToolSpec } from '../core/index.js';
import { isReplaySafe } from './activity-options.js';
import { INTERRUPTED_TOOL_CALL } from '../tools/interrupted-call.js';
import { failureMessage } from './failure-message.js';

/** What a lost attempt of a tool that must not run twice tells the model. */
export { INTERRUPTED_TOOL_CALL };

/** Timeouts that end an attempt which may have started: a dead worker or a hung body. */
const LOST_ATTEMPT_TIMEOUTS: ReadonlySet<TimeoutType | null | undefined> = new Set([
  TimeoutType.HEARTBEAT,
  TimeoutType.START_TO_CLOSE,
  TimeoutType.SCHEDULE_TO_CLOSE,
]);

/**
 * The failure type Temporal's core gives an attempt still running when its worker shut down
 * (past the worker's grace time: `dar run` on Ctrl-C, a deploy): its body was stopped midway.
 */
const WORKER_SHUTDOWN_FAILURE = 'WorkerShutdown';

/** Why an attempt that may have started was lost: a timeout, or its worker shutting down. */
function lostAttemptReason(error: unknown): string | undefined {
  if (!(error instanceof ActivityFailure)) return undefined;
  const cause = error.cause;
  if (cause instanceof ApplicationFailure && cause.type === WORKER_SHUTDOWN_FAILURE) {
    return 'its worker shut down while it ran';
  }
  if (!(cause instanceof TimeoutFailure)) return undefined;
  return LOST_ATTEMPT_TIMEOUTS.has(cause.timeoutType) ? cause.message : undefined;
}

/** Whether an activity's failure is a lost attempt: a timeout, or its worker shutting down. */
export function isLostAttempt(error: unknown): boolean {
  return lostAttemptReason(error) !== undefined;
}

/**
 * The error text of a tool call whose activity failed. A tool that is not replay-safe and lost
 * its only attempt (a timeout, or its worker shut down while it ran) gets
 * {@link INTERRUPTED_TOOL_CALL} with the reason: nothing
 * ran it again, and the model must look before it asks for the same thing twice. Everything
 * else gets the failure's own message.
 */
export function toolFailureMessage(tool: ToolSpec, error: unknown): string {
  const lost = isReplaySafe(tool) ? undefined : lostAttemptReason(error);
  if (lost) return `${INTERRUPTED_TOOL_CALL} (${lost})`;
  return failureMessage(error);
}
