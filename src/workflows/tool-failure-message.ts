import { TimeoutType } from '@temporalio/common';
import { ActivityFailure, TimeoutFailure } from '@temporalio/workflow';
import type { ToolSpec } from '../core/index.js';
import { isReplaySafe } from './activity-options.js';
import { failureMessage } from './failure-message.js';

/** What a lost attempt of a tool that must not run twice tells the model. */
export const INTERRUPTED_TOOL_CALL =
  'interrupted: this call may have partially run; check before retrying';

/** Timeouts that end an attempt which may have started: a dead worker or a hung body. */
const LOST_ATTEMPT_TIMEOUTS: ReadonlySet<TimeoutType | null | undefined> = new Set([
  TimeoutType.HEARTBEAT,
  TimeoutType.START_TO_CLOSE,
  TimeoutType.SCHEDULE_TO_CLOSE,
]);

function lostAttemptTimeout(error: unknown): TimeoutFailure | undefined {
  if (!(error instanceof ActivityFailure)) return undefined;
  const cause = error.cause;
  if (!(cause instanceof TimeoutFailure)) return undefined;
  return LOST_ATTEMPT_TIMEOUTS.has(cause.timeoutType) ? cause : undefined;
}

/**
 * The error text of a tool call whose activity failed. A tool that is not replay-safe and lost
 * its only attempt gets {@link INTERRUPTED_TOOL_CALL} (with the timeout as the reason): nothing
 * ran it again, and the model must look before it asks for the same thing twice. Everything
 * else gets the failure's own message.
 */
export function toolFailureMessage(tool: ToolSpec, error: unknown): string {
  const timeout = isReplaySafe(tool) ? undefined : lostAttemptTimeout(error);
  if (timeout) return `${INTERRUPTED_TOOL_CALL} (${timeout.message})`;
  return failureMessage(error);
}
