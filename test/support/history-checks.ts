import type { WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

const EventType = temporal.api.enums.v1.EventType;

export interface HistorySummary {
  /** WorkflowTaskFailed and WorkflowTaskTimedOut events: each is a task that had to be retried. */
  workflowTaskProblems: number;
  /** What each of those said (cause and message, or the timeout), to show when one happens. */
  workflowTaskProblemReasons: string[];
  /** Attempt of each started activity, by activity type, in history order. */
  activityAttempts: Array<{ activityType: string; attempt: number }>;
}

/**
 * A job's history in small pages: events that carry a large transcript can make a default page
 * pass gRPC's 4 MB message limit.
 */
async function historyEvents(
  handle: WorkflowHandle,
): Promise<temporal.api.history.v1.IHistoryEvent[]> {
  const events: temporal.api.history.v1.IHistoryEvent[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await handle.client.workflowService.getWorkflowExecutionHistory({
      namespace: handle.client.options.namespace,
      execution: { workflowId: handle.workflowId },
      maximumPageSize: 2,
      ...(nextPageToken ? { nextPageToken } : {}),
    });
    events.push(...(page.history?.events ?? []));
    nextPageToken =
      page.nextPageToken && page.nextPageToken.length > 0 ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return events;
}

/** What a job's history says about retried workflow tasks and activity attempts. */
export async function summarizeHistory(handle: WorkflowHandle): Promise<HistorySummary> {
  const scheduledTypes = new Map<string, string>();
  const summary: HistorySummary = {
    workflowTaskProblems: 0,
    workflowTaskProblemReasons: [],
    activityAttempts: [],
  };
  for (const event of await historyEvents(handle)) {
    const type = event.eventType;
    if (
      type === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED ||
      type === EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT
    ) {
      summary.workflowTaskProblems += 1;
      const failed = event.workflowTaskFailedEventAttributes;
      summary.workflowTaskProblemReasons.push(
        failed
          ? `failed (cause ${String(failed.cause)}): ${failed.failure?.message ?? ''}`.slice(0, 500)
          : 'timed out',
      );
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
