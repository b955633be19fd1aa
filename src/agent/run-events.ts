import type { AgentJob } from '../client/job-client.js';
import { LiveFilter } from '../client/live-filter.js';
import type { AgentEvent } from '../core/index.js';
import { isLiveEvent, type SequencedLiveEvent } from '../live/live-events.js';
import type { LiveMessages } from './live-messages.js';
import type { SequencedEvent } from '../workflows/job-types.js';

/** How far one run was read. */
export interface RunReading {
  /** Seq of the last event read. */
  lastSeq: number;
  /** An `agent_start` was read: the job took the message and ran. */
  started: boolean;
  /** The run's `agent_end` was read. */
  ended: boolean;
  /** Seq of the last live event read. */
  lastLiveSeq: number;
}

export interface RunReadingOptions {
  /** How often the store is read while nothing new is there (default 100 ms). */
  pollMs?: number;
  /** How often Temporal is asked whether the job has closed, while nothing new is read (default 1 s). */
  closedCheckMs?: number;
  /** Reads that may fail in a row (the store unreachable) before giving up (default 100). */
  maxFailedReads?: number;
  /**
   * Also read the job's live stream (token deltas, tool output), after this live seq, and hand
   * on Pi's events for it (see `LiveMessages`) between the job's events.
   */
  live?: { afterLiveSeq: number; messages: LiveMessages };
  /**
   * Once `signal` aborts, stop reading after `waitMs` even when the run has not ended (its job
   * was cancelled, and no worker may be there to end it): the reading returns with `ended`
   * false.
   */
  abandon?: { signal: AbortSignal; waitMs: number };
}

/** Whether the reading should stop: aborted `waitMs` ago or more (see `abandon`). */
function abandonment(abandon: RunReadingOptions['abandon']): () => boolean {
  if (!abandon) return () => false;
  let abortedAt: number | undefined;
  return () => {
    if (!abandon.signal.aborted) return false;
    abortedAt ??= Date.now();
    return Date.now() - abortedAt >= abandon.waitMs;
  };
}

/** Hands on Pi's events for the live events after `afterLiveSeq` still current; the new cursor. */
async function passLiveEvents(
  job: AgentJob,
  afterLiveSeq: number,
  filter: LiveFilter,
  messages: LiveMessages,
  onEvent: (event: AgentEvent) => Promise<void>,
): Promise<number> {
  // Held live events whose preceding job events were just passed on go first.
  for (const piEvent of messages.release()) await onEvent(piEvent);
  const store = job.store;
  if (!store) return afterLiveSeq;
  let page;
  let status;
  try {
    page = await store.readLiveEvents(job.workflowId, { afterSeq: afterLiveSeq });
    if (page.length === 0) return afterLiveSeq;
    status = await job.storedStatus();
  } catch {
    // Live events are best effort: the job's own events carry the run.
    return afterLiveSeq;
  }
  let cursor = afterLiveSeq;
  for (const stored of page) {
    cursor = stored.seq;
    if (!isLiveEvent(stored.event)) continue;
    const event = { ...stored.event, liveSeq: stored.seq } as SequencedLiveEvent;
    if (!filter.isCurrent(event, status)) continue;
    for (const piEvent of messages.fromLive(event)) await onEvent(piEvent);
  }
  return cursor;
}

function endsAssistantMessage(event: SequencedEvent): boolean {
  return event.type === 'message_end' && event.message.role === 'assistant';
}

/** Pi's events: the job's own (`compaction`) are not handed to Pi listeners. */
function isPiEvent(event: SequencedEvent): boolean {
  return event.type !== 'compaction';
}

function withoutSeq(event: SequencedEvent): AgentEvent {
  const copy: Record<string, unknown> = { ...event };
  delete copy.seq;
  return copy as AgentEvent;
}

/** Whether the job (its latest run) has closed; a failed ask is a no. */
async function hasClosed(job: AgentJob): Promise<boolean> {
  try {
    return (await job.handle.describe()).status.name !== 'RUNNING';
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Reads a job's events after `afterSeq` from the job store and hands each of Pi's to `onEvent`,
 * awaited, in the stream's order, until the run's `agent_end`; or until the job has closed with
 * nothing more to read (`ended` false: terminated, or closed before it took the prompt), or
 * until it is abandoned (`abandon`). A failed read is tried again from the last event handed
 * on, so a reconnect neither loses nor repeats an event.
 */
export async function readRun(
  job: AgentJob,
  afterSeq: number,
  onEvent: (event: AgentEvent) => Promise<void>,
  options: RunReadingOptions,
): Promise<RunReading> {
  const pollMs = options.pollMs ?? 100;
  const maxFailedReads = options.maxFailedReads ?? 100;
  const closedCheckMs = options.closedCheckMs ?? 1000;
  const reading: RunReading = {
    lastSeq: afterSeq,
    started: false,
    ended: false,
    lastLiveSeq: options.live?.afterLiveSeq ?? 0,
  };
  const live = options.live;
  const filter = new LiveFilter();
  let failedReads = 0;
  let closed = false;
  let lastCheck = Date.now();
  const abandoned = abandonment(options.abandon);
  for (;;) {
    let page: SequencedEvent[];
    try {
      page = await job.events(reading.lastSeq);
      failedReads = 0;
    } catch (error) {
      failedReads += 1;
      if (abandoned()) return reading;
      if (failedReads >= maxFailedReads) throw error;
      await sleep(pollMs * 5);
      continue;
    }
    for (const event of page) {
      if (live && endsAssistantMessage(event)) {
        // The message's last live events were stored before its end was (the model call
        // writes them before it returns), so a live read now has them: they go first.
        reading.lastLiveSeq = await passLiveEvents(
          job,
          reading.lastLiveSeq,
          filter,
          live.messages,
          onEvent,
        );
      }
      reading.lastSeq = event.seq;
      filter.noteEvent(event);
      if (event.type === 'agent_start') reading.started = true;
      if (isPiEvent(event)) {
        const piEvents = live ? live.messages.fromStored(withoutSeq(event)) : [withoutSeq(event)];
        for (const piEvent of piEvents) await onEvent(piEvent);
      }
      if (event.type === 'agent_end') {
        reading.ended = true;
        return reading;
      }
    }
    if (live) {
      const before = reading.lastLiveSeq;
      reading.lastLiveSeq = await passLiveEvents(job, before, filter, live.messages, onEvent);
      if (reading.lastLiveSeq !== before) continue;
    }
    if (page.length > 0) continue;
    // A job that had closed before this read had all its events in it.
    if (closed) return reading;
    if (Date.now() - lastCheck >= closedCheckMs) {
      lastCheck = Date.now();
      closed = await hasClosed(job);
      if (closed) continue;
    }
    if (abandoned()) return reading;
    await sleep(pollMs);
  }
}
