import type { WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

const EventType = temporal.api.enums.v1.EventType;

export interface HistorySummary {
  /** WorkflowTaskFailed and WorkflowTaskTimedOut events: each is a task that had to be retried. */
  workflowTaskProblems: number;
  /** Attempt of each started activity, by activity type, in history order. */
  activityAttempts: Array<{ activityType: string; attempt: number }>;
}

/** What a job's history says about retried workflow tasks and activity attempts. */
export async function summarizeHistory(handle: WorkflowHandle): Promise<HistorySummary> {
  const history = await handle.fetchHistory();
  const scheduledTypes = new Map<string, string>();
  const summary: HistorySummary = { workflowTaskProblems: 0, activityAttempts: [] };
  for (const event of history.events ?? []) {
    const type = event.eventType;
    if (
      type === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED ||
      type === EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT
    ) {
      summary.workflowTaskProblems += 1;
    }
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) {
      scheduledTypes.set(String(event.eventId), scheduled.activityType?.name ?? '');
    }
    const started = event.activityTaskStartedEventAttributes;
    if (started) {
      summary.activityAttempts.push({
        activityType: scheduledTypes.get(String(started.scheduledEventId)) ?? '',
        attempt: started.attempt ?? 0,
      });
    }
  }
  return summary;
}
