import { DefaultLogger, type LogLevel, type LogMetadata } from '@temporalio/worker';

/**
 * What the Temporal SDK says of a worker without workflows: the model-call workers a `dar`
 * process runs beside its job worker (one per provider's task queue) run activities only, by
 * design, and each would print it as a warning on every `dar run`.
 */
const ACTIVITY_ONLY_WORKER_NOTICE = 'No workflows registered, not polling for workflow tasks';

/** What the SDK logs, with the whole failure and the task token, when an activity attempt fails. */
const ACTIVITY_FAILED = 'Activity failed';

/** The levels at which a failed activity is logged whole (`DAR_LOG_LEVEL=DEBUG`). */
const WHOLE_FAILURE_LEVELS: readonly LogLevel[] = ['TRACE', 'DEBUG'];

/**
 * The SDK's logger (to stderr), less the notices that are expected of a `dar` process, and with
 * a failed activity attempt told in a few fields instead of thirty lines: a tool that answers
 * with an error (the model reads it in the job's events) or a provider that refuses a call fails
 * its activity, and the stack trace and task token the SDK logs with it buried the job's own
 * output. `DAR_LOG_LEVEL=DEBUG` logs the failure whole.
 */
export class CliLogger extends DefaultLogger {
  override log(level: LogLevel, message: string, meta?: LogMetadata): void {
    if (message === ACTIVITY_ONLY_WORKER_NOTICE) return;
    if (message === ACTIVITY_FAILED && !WHOLE_FAILURE_LEVELS.includes(this.level)) {
      super.log(level, message, failureInBrief(meta));
      return;
    }
    super.log(level, message, meta);
  }
}

/** The activity, its job and attempt, and the failure's message alone. */
function failureInBrief(meta: LogMetadata | undefined): LogMetadata | undefined {
  if (!meta) return meta;
  const { activityType, workflowId, attempt, error } = meta as Record<string, unknown>;
  return {
    activityType,
    workflowId,
    attempt,
    error: error instanceof Error ? error.message : error,
  };
}
