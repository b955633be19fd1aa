import {
  CancellationScope,
  condition,
  proxyLocalActivities,
  proxySinks,
  workflowInfo,
} from '@temporalio/workflow';
import type { AgentActivities } from '../activities/index.js';
import { storeLocalActivityOptions } from './activity-options.js';
import type { JobState } from './job-state.js';
import { advanceTranscript, transcriptLength, unstoredMessages } from './job-state.js';
import type { JobEvent, JobStatus } from './job-types.js';
import type { ProgressSinks } from './progress-sink.js';

/**
 * The job's events and status go to the job store through a local activity: its input never
 * enters history (only a small marker with its result does), so the event stream costs history
 * nothing however large the events are. A store outage retries with backoff: the job waits.
 */
const { recordProgress } = proxyLocalActivities<AgentActivities>(storeLocalActivityOptions);

export interface ProgressRecorder {
  /** Numbers an event and queues it; it is written with the next flush, started at once. */
  record(event: JobEvent): void;
  /** Resolves when every event recorded so far, and the transcript, are in the store. */
  flush(): Promise<void>;
  /** The job's phase changed without an event: the stored status should follow soon. */
  statusChanged(): void;
}

/**
 * `agent_end` refers to the run's messages by their transcript positions instead of copying
 * them: the recorder stores the transcript first and fills in `head`. Readers expand it.
 */
function storedForm(event: JobEvent, state: JobState): unknown {
  if (event.type !== 'agent_end') return event;
  return {
    type: 'agent_end',
    messages: [],
    messagesRange: { start: state.runStart, end: transcriptLength(state) },
  };
}

/**
 * The recorder of runs recorded before the progress sink: one local activity per burst of
 * events, each holding its workflow task open until it is written. Kept for their replay.
 */
export function createLocalActivityRecorder(
  state: JobState,
  statusOf: () => JobStatus,
): ProgressRecorder {
  const jobId = workflowInfo().workflowId;
  let queued: { seq: number; event: unknown }[] = [];
  let chain: Promise<void> = Promise.resolve();
  let scheduled = false;

  /** Writes the queued events, the unstored messages and the status (always, when asked). */
  const write = async (always: boolean): Promise<void> => {
    scheduled = false;
    const events = queued;
    queued = [];
    const unstored = unstoredMessages(state);
    if (!always && events.length === 0 && unstored.length === 0) return;
    const written = await CancellationScope.nonCancellable(() =>
      recordProgress({
        jobId,
        events,
        status: statusOf(),
        transcript: { pointer: state.transcript, unstored },
      }),
    );
    advanceTranscript(state, written.transcript);
  };

  return {
    record(event) {
      state.lastSeq += 1;
      queued.push({ seq: state.lastSeq, event: storedForm(event, state) });
      if (scheduled) return;
      // Written after this activation's other events are queued: one write for a burst.
      scheduled = true;
      chain = chain.then(() => write(false));
    },
    flush() {
      chain = chain.then(() => write(true));
      return chain;
    },
    statusChanged() {
      // Recorded histories hold no write for it: the status follows with the next events.
    },
  };
}

/** A durable write at least every this many turns, so a crash loses no more from the stream. */
const DURABLE_EVERY_TURNS = 10;
/** ... or once this many events wait for one (they are held in workflow memory until then). */
const DURABLE_AT_EVENTS = 200;

/**
 * The recorder: events and status leave through a sink as they happen (no local activity, so
 * the workflow task is not held open and a turn costs what its activities cost), and are
 * written again, durably, by a local activity every few turns, when the job waits, ends or
 * continues as new. A sink write is lost when the worker dies before making it, and sink
 * calls are not repeated on replay; the durable write repeats every event since the last one,
 * so the stream is whole whatever happens. Events wait in memory until written durably.
 *
 * `agent_end` refers to transcript positions that only the durable write (which stores the
 * transcript) can fill in: the sink stops before it, and the run's end flushes.
 */
export function createSinkRecorder(state: JobState, statusOf: () => JobStatus): ProgressRecorder {
  const jobId = workflowInfo().workflowId;
  const { jobProgress } = proxySinks<ProgressSinks>();
  /** Events not yet written durably, in seq order. */
  let pending: { seq: number; event: unknown }[] = [];
  /** The last seq handed to the sink (or written durably). */
  let sentUpTo = state.lastSeq;
  let turnsSinceDurable = 0;
  let sendScheduled = false;
  let statusStale = false;
  let chain: Promise<void> = Promise.resolve();

  const writeDurably = async (always: boolean): Promise<void> => {
    // A copy: events recorded while the write runs wait for the next one.
    const events = pending.slice();
    const unstored = unstoredMessages(state);
    if (!always && events.length === 0 && unstored.length === 0) return;
    const written = await CancellationScope.nonCancellable(() =>
      recordProgress({
        jobId,
        events,
        status: statusOf(),
        transcript: { pointer: state.transcript, unstored },
      }),
    );
    advanceTranscript(state, written.transcript);
    const upTo = events.at(-1)?.seq ?? 0;
    pending = pending.filter((entry) => entry.seq > upTo);
    sentUpTo = Math.max(sentUpTo, upTo);
  };

  const sendSoon = (): void => {
    sendScheduled = false;
    // A replayed activation's sink calls are dropped: what it recorded goes out with the
    // first live one (or the next durable write).
    if (workflowInfo().unsafe.isReplaying) return;
    const events: { seq: number; event: unknown }[] = [];
    for (const entry of pending) {
      if (entry.seq <= sentUpTo) continue;
      if (isRunEnd(entry.event)) break;
      events.push(entry);
    }
    if (events.length === 0 && !statusStale) return;
    statusStale = false;
    const status = statusOf();
    jobProgress.write({
      jobId,
      events,
      // Readers take `done` to mean every event is stored: only the final durable write says so.
      ...(status.phase === 'done' ? {} : { status }),
      transcript: { pointer: state.transcript, unstored: [] },
    });
    sentUpTo = events.at(-1)?.seq ?? sentUpTo;
  };

  // Sent once the activation's code has run, in one sink write. The SDK evaluates every blocked
  // condition then (after each job, and again once the microtasks have settled), so a condition
  // that never holds serves as the activation's last step: no promise per burst (each costs a
  // stack capture in Temporal's promise hook), and the events that several activity results
  // record in one activation go out together. A condition makes no command, so histories of any
  // release replay the same.
  const scheduleSend = (): void => {
    sendScheduled = true;
  };
  void CancellationScope.nonCancellable(() =>
    condition(() => {
      if (sendScheduled) sendSoon();
      return false;
    }),
  );

  return {
    record(event) {
      state.lastSeq += 1;
      pending.push({ seq: state.lastSeq, event: storedForm(event, state) });
      if (event.type === 'turn_end') turnsSinceDurable += 1;
      if (turnsSinceDurable >= DURABLE_EVERY_TURNS || pending.length >= DURABLE_AT_EVENTS) {
        turnsSinceDurable = 0;
        chain = chain.then(() => writeDurably(false));
      }
      scheduleSend();
    },
    flush() {
      turnsSinceDurable = 0;
      chain = chain.then(() => writeDurably(true));
      return chain;
    },
    statusChanged() {
      statusStale = true;
      scheduleSend();
    },
  };
}

function isRunEnd(event: unknown): boolean {
  return (event as { type?: unknown }).type === 'agent_end';
}
