import { ActivityFailure, TimeoutFailure } from '@temporalio/workflow';

/** The message worth showing the model for a failed activity: its cause's, not the wrapper's. */
export function failureMessage(error: unknown): string {
  if (error instanceof ActivityFailure && error.cause) {
    if (error.cause instanceof TimeoutFailure) {
      return `${error.activityType} timed out (${error.cause.message})`;
    }
    return error.cause.message;
  }
  return error instanceof Error ? error.message : String(error);
}
