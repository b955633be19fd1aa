import type { Client, WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** One run of a workflow (continue-as-new starts the next): its id and its whole history. */
export interface WorkflowRun {
  runId: string;
  events: HistoryEvent[];
}

/**
 * Every run of a workflow, first to last, found by following each run's
 * WorkflowExecutionContinuedAsNew event to the next run id. `started` is the handle that
 * started the workflow (it knows the first run's id).
 */
export async function workflowRuns(
  client: Client,
  started: WorkflowHandle,
): Promise<WorkflowRun[]> {
  const firstRunId = (started as { firstExecutionRunId?: unknown }).firstExecutionRunId;
  if (typeof firstRunId !== 'string') {
    throw new Error('Pass the handle that started the workflow (it knows the first run id)');
  }
  const runs: WorkflowRun[] = [];
  let runId: string | undefined = firstRunId;
  while (runId !== undefined) {
    const history = await client.workflow.getHandle(started.workflowId, runId).fetchHistory();
    const events: HistoryEvent[] = history.events ?? [];
    runs.push({ runId, events });
    const continued = events.find(
      (event) => event.workflowExecutionContinuedAsNewEventAttributes,
    )?.workflowExecutionContinuedAsNewEventAttributes;
    runId = continued?.newExecutionRunId ?? undefined;
  }
  return runs;
}

/** The size in bytes of a payload (data and metadata), as the server stores it. */
function payloadSize(payload: { data: Uint8Array; metadata?: unknown }): number {
  let size = payload.data.length;
  if (payload.metadata && typeof payload.metadata === 'object') {
    for (const [key, value] of Object.entries(payload.metadata)) {
      size += key.length + (value instanceof Uint8Array ? value.length : 0);
    }
  }
  return size;
}

function isPayload(value: object): value is { data: Uint8Array; metadata?: unknown } {
  return 'data' in value && value.data instanceof Uint8Array;
}

/** The sizes of every payload anywhere in a value (an event, an event's attributes). */
export function payloadSizes(value: unknown): number[] {
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return [];
  if (isPayload(value)) return [payloadSize(value)];
  return Object.values(value).flatMap((child) => payloadSizes(child));
}

/** The total size of the payloads of a run's WorkflowExecutionStarted input. */
export function startInputSize(run: WorkflowRun): number {
  const started = run.events[0]?.workflowExecutionStartedEventAttributes;
  if (!started) throw new Error(`Run ${run.runId} does not begin with WorkflowExecutionStarted`);
  return payloadSizes(started.input).reduce((total, size) => total + size, 0);
}

/** The name of each event's attributes without `EventAttributes` (`workflowTaskFailed`, ...). */
export function eventKinds(events: HistoryEvent[]): string[] {
  return events.map((event) => {
    const record: Record<string, unknown> = { ...event };
    const key = Object.keys(record).find(
      (name) => name.endsWith('EventAttributes') && record[name] != null,
    );
    return key ? key.replace(/EventAttributes$/, '') : 'unknown';
  });
}
