import {
  ActivityCancellationType,
  type ActivityOptions,
  type LocalActivityOptions,
} from '@temporalio/workflow';
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

/**
 * The job store's local activities (the progress recorder's writes, the carried messages'
 * store): a store outage retries with backoff, without end, so the job waits for the store
 * rather than lose what it was writing.
 */
export const storeLocalActivityOptions: LocalActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
  },
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
};

const defaultToolOptions = {
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { maximumAttempts: 3 },
} as const;

/** Whether the tool declared that a second run of its body is harmless (unset: it is not). */
export function isReplaySafe(tool: ToolSpec): boolean {
  return tool.replay === 'safe';
}

/**
 * A tool body's activity options: its spec's, over the defaults. A tool that is not replay-safe
 * gets exactly one attempt whatever its retry policy says: a lost attempt may have half done
 * its side effects, and only the model (told so, see `toolFailureMessage`) can check.
 */
export function toolActivityOptions(tool: ToolSpec): ActivityOptions {
  const own = tool.activity ?? {};
  const retry = { ...defaultToolOptions.retry, ...own.retry };
  const options: ActivityOptions = {
    startToCloseTimeout: own.startToCloseTimeout ?? defaultToolOptions.startToCloseTimeout,
    heartbeatTimeout: own.heartbeatTimeout ?? defaultToolOptions.heartbeatTimeout,
    retry: isReplaySafe(tool) ? retry : { ...retry, maximumAttempts: 1 },
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  };
  if (own.scheduleToCloseTimeout !== undefined) {
    options.scheduleToCloseTimeout = own.scheduleToCloseTimeout;
  }
  return options;
}
