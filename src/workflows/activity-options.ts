import { ActivityCancellationType, type ActivityOptions } from '@temporalio/workflow';
import type { ToolSpec } from '../core/index.js';

/**
 * The model call: retried with backoff on transient failures; heartbeats every second while it
 * waits, so a cancellation reaches it within a few seconds.
 */
export const modelActivityOptions: ActivityOptions = {
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 6,
    nonRetryableErrorTypes: ['ModelConfigurationError'],
  },
  // Wait for the activity to acknowledge a cancellation, so nothing runs on after agent_end.
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
};

const defaultToolOptions = {
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { maximumAttempts: 3 },
} as const;

/** A tool body's activity options: its spec's, over the defaults. */
export function toolActivityOptions(tool: ToolSpec): ActivityOptions {
  const own = tool.activity ?? {};
  const options: ActivityOptions = {
    startToCloseTimeout: own.startToCloseTimeout ?? defaultToolOptions.startToCloseTimeout,
    heartbeatTimeout: own.heartbeatTimeout ?? defaultToolOptions.heartbeatTimeout,
    retry: { ...defaultToolOptions.retry, ...own.retry },
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  };
  if (own.scheduleToCloseTimeout !== undefined) {
    options.scheduleToCloseTimeout = own.scheduleToCloseTimeout;
  }
  return options;
}
