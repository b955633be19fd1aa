import type { JobStore } from '../store/job-store.js';
import { streamSettingsFromEnvironment } from '../live/stream-settings.js';
import { appendToTranscript } from '../transcript/transcript-nodes.js';
import type { JobStatus, TranscriptPointer } from '../workflows/job-types.js';
import { JOB_STATUS_RECORD, type StoredJobStatus } from './job-status-record.js';
import { QuicklyWrittenEvents } from './quickly-written-events.js';
import { StatusPacing } from './status-pacing.js';
import type { TranscriptInput } from '../transcript/model-context.js';

/** One write of a job's progress: new events, its status and, optionally, unstored messages. */
export interface ProgressWrite {
  jobId: string;
  events: { seq: number; event: unknown }[];
  /** Left out, the stored status stays as it is. */
  status?: JobStatus;
  /**
   * The transcript as the workflow knows it. With `unstored` messages they are appended first;
   * the status record points at the result.
   */
  transcript: TranscriptInput;
}

interface AgentJobRangeEvent {
  type: 'agent_end';
  messagesRange: { start: number; end: number; head?: string | null };
}

function isAgentEndRange(event: unknown): event is AgentJobRangeEvent {
  return (
    typeof event === 'object' &&
    event !== null &&
    (event as { type?: unknown }).type === 'agent_end' &&
    'messagesRange' in event
  );
}

export interface ProgressWriter {
  /**
   * Writes after every write of the same job handed to this writer before it, so a job's
   * events and status land in the order its workflow produced them. Resolves with the stored
   * transcript's pointer. Idempotent; a seq that holds other content is replaced (a workflow
   * task that failed after its events were written runs again, and its new run decides).
   */
  write(progress: ProgressWrite): Promise<TranscriptPointer>;
  /**
   * `write` without waiting, for progress that a later durable `write` repeats: returns at once
   * and starts the write once the event loop turns (or at the next `write`, which it precedes);
   * never throws (`onError` hears of a failure). After a failure, the job's next
   * `writeSoon` calls are skipped until a `write` succeeds, so readers never see a later event
   * stored before an earlier one that failed. Its events are written at once; its status may be
   * held back for up to a second when the job's phase is unchanged (`StatusPacing`).
   */
  writeSoon(progress: ProgressWrite, onError: (error: unknown) => void): void;
}

/**
 * Once a job has ended (every event stored), its live stream goes, unless the worker keeps it
 * (`DAR_STREAM_RETENTION=keep`). Best effort: a failure leaves it for a later drop.
 */
async function dropLiveStream(store: JobStore, jobId: string): Promise<void> {
  try {
    if (streamSettingsFromEnvironment().retention !== 'drop') return;
    await store.dropLiveEvents(jobId, Number.MAX_SAFE_INTEGER);
  } catch {
    // The stream stays; its deltas are of ended messages, which followers skip.
  }
}

/** A job's stored status is at most this far behind it between phase changes (`StatusPacing`). */
const STATUS_INTERVAL_MS = 1000;

const writers = new WeakMap<JobStore, ProgressWriter>();

/**
 * The one progress writer of a store in this process: the workflow's fire-and-forget writes
 * (a sink) and its durable flushes (a local activity) share it, and so share its order.
 */
export function progressWriterFor(store: JobStore): ProgressWriter {
  let writer = writers.get(store);
  if (!writer) {
    writer = createProgressWriter(store);
    writers.set(store, writer);
  }
  return writer;
}

/** A quick write queued behind the job's write in progress, not started yet. */
interface WaitingWrite {
  progress: ProgressWrite;
  onErrors: ((error: unknown) => void)[];
  /** A durable write queued after it repeats all its events: it is skipped. */
  superseded?: boolean;
}

/**
 * Whether the durable write `durable` repeats every event of the quick write `quick` of the same
 * job. A job's events not yet written durably are one run of seqs, and every durable write
 * holds all of them up to its last: a quick write whose last event is among them adds nothing
 * that the durable write does not (its status is older than what readers get after both: the
 * durable write, queued after it, would overwrite it).
 */
function repeats(durable: ProgressWrite, quick: ProgressWrite): boolean {
  const quickLast = quick.events.at(-1)?.seq;
  const durableLast = durable.events.at(-1)?.seq;
  return quickLast !== undefined && durableLast !== undefined && quickLast <= durableLast;
}

/**
 * `later`'s events after `earlier`'s, and its status and transcript (the newer ones). Only
 * when neither carries messages to store: a quick write never does.
 */
function mergeable(earlier: ProgressWrite, later: ProgressWrite): boolean {
  return earlier.transcript.unstored.length === 0 && later.transcript.unstored.length === 0;
}

function createProgressWriter(store: JobStore): ProgressWriter {
  const tails = new Map<string, Promise<unknown>>();
  /** Jobs whose last quick write failed: quick writes wait for a durable one. */
  const behind = new Set<string>();
  /**
   * Per job, the quick write waiting for the one in progress: the next quick writes join it,
   * so a job that makes progress faster than the store takes it gets one write per round
   * (its events together, its newest status once) instead of one per burst.
   */
  const waiting = new Map<string, WaitingWrite>();
  const quicklyWritten = new QuicklyWrittenEvents();
  const statusPacing = new StatusPacing(STATUS_INTERVAL_MS);
  /** Statuses the pacing held back and hands over late (see `outdatedBy`). */
  const heldStatuses = new WeakSet<JobStatus>();

  async function writeNow(progress: ProgressWrite, durable: boolean): Promise<TranscriptPointer> {
    const transcript =
      progress.transcript.unstored.length === 0
        ? progress.transcript.pointer
        : await appendToTranscript(
            store,
            progress.transcript.pointer,
            progress.transcript.unstored,
          );
    const events = progress.events.map(({ seq, event }) =>
      isAgentEndRange(event)
        ? {
            seq,
            event: { ...event, messagesRange: { ...event.messagesRange, head: transcript.head } },
          }
        : { seq, event },
    );
    // A durable write repeats every event since the last one: those stored by quick writes
    // meanwhile, unchanged, are not written (nor read back) again.
    const toAppend = durable ? quicklyWritten.notYetWritten(progress.jobId, events) : events;
    if (toAppend.length > 0) {
      await store.appendEvents(progress.jobId, toAppend, { replace: true });
    }
    const lastSeq = events.at(-1)?.seq;
    if (!durable) quicklyWritten.remember(progress.jobId, events);
    else if (lastSeq !== undefined) quicklyWritten.forgetUpTo(progress.jobId, lastSeq);
    if (progress.status && !(await heldStatusOutdated(progress.jobId, progress.status))) {
      const status: StoredJobStatus = { ...progress.status, transcript };
      // A quick write's status is not flushed: the job's next step writes a newer one, and the
      // job writes durably before it waits (for a follow-up or an approval) and when it ends
      // (phase `done` only ever comes durably).
      await store.putRecord(JOB_STATUS_RECORD, progress.jobId, status, { durable });
      // Not awaited: the job's last write (which holds its workflow task open) need not wait
      // for a best-effort clean-up.
      if (status.phase === 'done') void dropLiveStream(store, progress.jobId);
    }
    return transcript;
  }

  function enqueue(
    jobId: string,
    writeWhenDue: () => Promise<TranscriptPointer>,
  ): Promise<TranscriptPointer> {
    const previous = tails.get(jobId) ?? Promise.resolve();
    const written = previous.catch(() => undefined).then(writeWhenDue);
    tails.set(jobId, written);
    // Forget a job once its last write settles, so the map holds only jobs being written.
    void written
      .catch(() => undefined)
      .then(() => {
        if (tails.get(jobId) === written) tails.delete(jobId);
      });
    return written;
  }

  /** A quick write, made after the job's writes queued before it (see `writeSoon`). */
  function writeQuickly(progress: ProgressWrite, onError: (error: unknown) => void): void {
    const { jobId } = progress;
    if (behind.has(jobId)) return;
    const joined = waiting.get(jobId);
    if (joined && mergeable(joined.progress, progress)) {
      joined.progress = {
        jobId,
        events: [...joined.progress.events, ...progress.events],
        status: progress.status ?? joined.progress.status,
        transcript: progress.transcript,
      };
      joined.onErrors.push(onError);
      return;
    }
    const entry: WaitingWrite = { progress, onErrors: [onError] };
    waiting.set(jobId, entry);
    enqueue(jobId, () => {
      if (waiting.get(jobId) === entry) waiting.delete(jobId);
      if (entry.superseded) return Promise.resolve(entry.progress.transcript.pointer);
      return writeNow(entry.progress, false);
    }).catch((error: unknown) => {
      behind.add(jobId);
      for (const report of entry.onErrors) report(error);
    });
  }

  /**
   * Whether a status the pacing held back is older than the stored one. Only a held status is
   * asked (a read per write would cost every burst): it is written up to a second late, and
   * meanwhile the job may have moved to another worker (this one's cache evicted it) that wrote
   * a newer status, `done` even. Its write would then take the job back to an older phase.
   */
  async function heldStatusOutdated(jobId: string, status: JobStatus): Promise<boolean> {
    if (!heldStatuses.has(status)) return false;
    const stored = (await store.getRecord(JOB_STATUS_RECORD, jobId)) as unknown as
      StoredJobStatus | undefined;
    return stored !== undefined && (stored.phase === 'done' || stored.lastSeq > status.lastSeq);
  }

  function writeSoonNow(progress: ProgressWrite, onError: (error: unknown) => void): void {
    const paced = statusPacing.pace(progress, (held) => {
      if (held.status) heldStatuses.add(held.status);
      writeQuickly(held, onError);
    });
    if (paced.events.length === 0 && paced.status === undefined) return;
    writeQuickly(paced, onError);
  }

  /**
   * Quick writes handed over since the event loop last turned. The workflow's sink hands them
   * over while the worker completes a workflow task, which waits for the sink: they start once
   * the completion is on its way (a write's first steps are synchronous: see `file-writes.ts`).
   */
  let deferred: { progress: ProgressWrite; onError: (error: unknown) => void }[] = [];
  let drainScheduled = false;
  const drainDeferred = (): void => {
    drainScheduled = false;
    const handed = deferred;
    deferred = [];
    for (const { progress, onError } of handed) writeSoonNow(progress, onError);
  };

  return {
    async write(progress) {
      // Quick writes handed over before this one go first, as if made at once, unless this one
      // repeats all they hold (the job's last write repeats the events of its last activation):
      // one write instead of two, on the path of the workflow task that waits for this one.
      deferred = deferred.filter(
        (handed) => handed.progress.jobId !== progress.jobId || !repeats(progress, handed.progress),
      );
      drainDeferred();
      const queued = waiting.get(progress.jobId);
      if (queued && repeats(progress, queued.progress)) queued.superseded = true;
      // Quick writes after this one must not join one queued before it: they would land first.
      waiting.delete(progress.jobId);
      if (progress.status) statusPacing.written(progress.jobId, progress.status);
      const transcript = await enqueue(progress.jobId, () => writeNow(progress, true));
      behind.delete(progress.jobId);
      return transcript;
    },
    writeSoon(progress, onError) {
      deferred.push({ progress, onError });
      if (drainScheduled) return;
      drainScheduled = true;
      setImmediate(drainDeferred);
    },
  };
}
