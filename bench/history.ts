import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import type { temporal } from '@temporalio/proto';

// The package is CommonJS: its namespace object is the default export under ESM.
const { temporal: protos } = proto;

type History = temporal.api.history.v1.IHistory;
const EventType = protos.api.enums.v1.EventType;

export interface HistoryFacts {
  events: number;
  bytes: number;
  largestPayloadBytes: number;
  /** Milliseconds between successive model calls being scheduled, and from the last to the close. */
  turnLatenciesMs: number[];
  /** Markers recorded (local activities such as `recordProgress`, patches). */
  markers: number;
  workflowTasks: number;
  /** Milliseconds from each workflow task being picked up to its completion, summed. */
  workflowTaskMs: number;
  /** Milliseconds from each workflow task being scheduled to its completion, summed. */
  workflowTaskWallMs: number;
}

function milliseconds(time: temporal.api.history.v1.IHistoryEvent['eventTime']): number {
  if (!time) return 0;
  return Number(time.seconds ?? 0) * 1000 + (time.nanos ?? 0) / 1e6;
}

/** An int64 field as a number, whether the decoder gave a Long or a number. */
function asNumber(value: unknown): number {
  return Number(String(value));
}

/** The largest `data` of any payload reachable from a value. */
function largestPayload(value: unknown, seen = new Set<unknown>()): number {
  if (typeof value !== 'object' || value === null || seen.has(value)) return 0;
  seen.add(value);
  if (value instanceof Uint8Array) return 0;
  let largest = 0;
  const record = value as Record<string, unknown>;
  if (record.data instanceof Uint8Array && 'metadata' in record) largest = record.data.length;
  for (const child of Object.values(record))
    largest = Math.max(largest, largestPayload(child, seen));
  return largest;
}

/**
 * A history in small pages: a long job's events carry its whole transcript, and a default page
 * can pass gRPC's 4 MB message limit.
 */
async function fetchEvents(
  client: Client,
  workflowId: string,
  runId: string | undefined,
): Promise<temporal.api.history.v1.IHistoryEvent[]> {
  const events: temporal.api.history.v1.IHistoryEvent[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId, ...(runId ? { runId } : {}) },
      maximumPageSize: 2,
      ...(nextPageToken ? { nextPageToken } : {}),
    });
    events.push(...(page.history?.events ?? []));
    nextPageToken =
      page.nextPageToken && page.nextPageToken.length > 0 ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return events;
}

export async function historyFacts(
  client: Client,
  workflowId: string,
  /** The activities that call the model (the runner's: `MODEL_CALL_ACTIVITIES`). */
  modelActivityTypes: ReadonlySet<string>,
  runId?: string,
): Promise<HistoryFacts> {
  const events = await fetchEvents(client, workflowId, runId);
  const history: History = { events };
  const modelTimes = events
    .filter(
      (event) =>
        event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED &&
        modelActivityTypes.has(
          event.activityTaskScheduledEventAttributes?.activityType?.name ?? '',
        ),
    )
    .map((event) => milliseconds(event.eventTime));
  const closeTime = milliseconds(events.at(-1)?.eventTime);
  const marks = [...modelTimes, closeTime];
  const turnLatenciesMs = marks.slice(1).map((time, index) => time - (marks[index] ?? time));
  const timeOf = new Map(
    events.map((event) => [asNumber(event.eventId), milliseconds(event.eventTime)]),
  );
  const completedTasks = events.flatMap((event) =>
    event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED &&
    event.workflowTaskCompletedEventAttributes
      ? [
          {
            completed: milliseconds(event.eventTime),
            ...event.workflowTaskCompletedEventAttributes,
          },
        ]
      : [],
  );
  const sumSince = (eventIds: unknown[], ends: number[]) =>
    eventIds.reduce<number>(
      (total, id, index) => total + (ends[index] ?? 0) - (timeOf.get(asNumber(id)) ?? 0),
      0,
    );
  const ends = completedTasks.map((task) => task.completed);
  return {
    events: events.length,
    markers: events.filter((event) => event.eventType === EventType.EVENT_TYPE_MARKER_RECORDED)
      .length,
    workflowTasks: completedTasks.length,
    workflowTaskMs: sumSince(
      completedTasks.map((task) => task.startedEventId),
      ends,
    ),
    workflowTaskWallMs: sumSince(
      completedTasks.map((task) => task.scheduledEventId),
      ends,
    ),
    bytes: protos.api.history.v1.History.encode(history).finish().length,
    largestPayloadBytes: Math.max(0, ...events.map((event) => largestPayload(event))),
    turnLatenciesMs,
  };
}
