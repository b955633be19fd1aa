import type { AgentJob } from '../client/job-client.js';
import type { AgentEvent } from '../core/index.js';
import type { SequencedEvent } from '../workflows/job-types.js';

/** How far one run was read. */
export interface RunReading {
  /** Seq of the last event read. */
  lastSeq: number;
  /** An `agent_start` was read: the job took the message and ran. */
  started: boolean;
  /** The run's `agent_end` was read. */
  ended: boolean;
}

export interface RunReadingOptions {
  /** How often the store is read while nothing new is there (default 100 ms). */
  pollMs?: number;
  /** How often Temporal is asked whether the job has closed, while nothing new is read (default 1 s). */
  closedCheckMs?: number;
  /** Reads that may fail in a row (the store unreachable) before giving up (default 100). */
  maxFailedReads?: number;
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
 * nothing more to read (`ended` false: terminated, or closed before it took the prompt). A failed read is tried again from the last event handed
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
  const reading: RunReading = { lastSeq: afterSeq, started: false, ended: false };
  let failedReads = 0;
  let closed = false;
  let lastCheck = Date.now();
  for (;;) {
    let page: SequencedEvent[];
    try {
      page = await job.events(reading.lastSeq);
      failedReads = 0;
    } catch (error) {
      failedReads += 1;
      if (failedReads >= maxFailedReads) throw error;
      await sleep(pollMs * 5);
      continue;
    }
    for (const event of page) {
      reading.lastSeq = event.seq;
      if (event.type === 'agent_start') reading.started = true;
      if (isPiEvent(event)) await onEvent(withoutSeq(event));
      if (event.type === 'agent_end') {
        reading.ended = true;
        return reading;
      }
    }
    if (page.length > 0) continue;
    // A job that had closed before this read had all its events in it.
    if (closed) return reading;
    if (Date.now() - lastCheck >= closedCheckMs) {
      lastCheck = Date.now();
      closed = await hasClosed(job);
      if (closed) continue;
    }
    await sleep(pollMs);
  }
}
