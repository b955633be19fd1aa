import {
  QueryNotRegisteredError,
  type Client,
  type WorkflowHandle,
  type WorkflowStartOptions,
} from '@temporalio/client';
import type { StoredJobStatus } from '../activities/job-status-record.js';
import type { Message } from '../core/index.js';
import { emptyUsage } from '../core/messages.js';
import type { JobStore } from '../store/job-store.js';
import { isLiveEvent, type SequencedLiveEvent } from '../live/live-events.js';
import { ClosureCheck } from './closure-check.js';
import { LiveFilter } from './live-filter.js';
import { cachedReader } from '../transcript/cached-reader.js';
import { loadTranscript, type ReadObject } from '../transcript/transcript-nodes.js';
import { firstReleaseJob } from './first-release-job.js';
import { checkPolicyLimits } from '../policy/policy-file.js';
import { checkNewJobId } from './job-id.js';
import { checkMessageLength, checkMessageNotEmpty } from './message-length.js';
import { sendingPayload } from './payload-limit.js';
import { startWithJobAttributes } from './start-attributes.js';
import { EVENT_PAGE_SIZE, readStoredEvents, readStoredStatus } from './stored-job-reads.js';
import { DEFAULT_TASK_QUEUE } from '../worker/task-queue.js';
import {
  eventsQuery,
  followUpSignal,
  statusQuery,
  steerSignal,
  transcriptQuery,
} from '../workflows/definitions.js';
import type {
  AgentJobInput,
  AgentJobResult,
  JobStatus,
  SequencedEvent,
} from '../workflows/job-types.js';

export const AGENT_WORKFLOW_TYPE = 'agentJob';

/** The status of a current job that has not written anything yet (no worker has run it). */
function notStartedStatus(): JobStatus {
  return {
    phase: 'starting',
    turns: 0,
    modelCalls: 0,
    lastSeq: 0,
    cancelled: false,
    usage: emptyUsage(),
    continuedAsNew: 0,
  };
}

function withoutTranscript(stored: StoredJobStatus): JobStatus {
  const status: Partial<StoredJobStatus> = { ...stored };
  delete status.transcript;
  return status as JobStatus;
}

export interface FollowOptions {
  /** Start after this sequence number (default 0: from the first event). */
  afterSeq?: number;
  /** How often the store is read while nothing new is there (default 200 ms). */
  pollMs?: number;
  /** Stops following (the returned promise rejects with the signal's reason). */
  signal?: AbortSignal;
  /**
   * Follow past `agent_end` until the job has ended, for a kept-open job (`keepOpenMs`) whose
   * follow-ups start further runs. Default false: stop at the first `agent_end`.
   */
  untilClosed?: boolean;
  /**
   * Stop only at an `agent_end` after this seq: earlier ones are passed on and followed past.
   * A follower that attaches to a kept-open job waiting for a message gives its last seq, to
   * stop at the end of the next run (a follow-up starts it), not at the end of the last one.
   */
  endAfterSeq?: number;
  /**
   * Also follow the job's live stream (token deltas, tool output; see `LiveEventStore`):
   * `onLive` hears each live event of a message or tool call still under way, between the
   * job's events, as it is stored. Live events of messages that ended are skipped.
   */
  live?: LiveFollowOptions;
}

export interface LiveFollowOptions {
  /** Start after this live seq (default 0: the live stream's start). */
  afterLiveSeq?: number;
  /** How often the store is read (default 50 ms). */
  pollMs?: number;
  onLive: (event: SequencedLiveEvent) => void | Promise<void>;
}

export interface StartJobOptions {
  /**
   * The job's id (default `agent-<uuid>`): 1 to 255 bytes of printable characters without
   * spaces; any other is refused with a `JobIdError` before anything is started.
   */
  workflowId?: string;
  taskQueue?: string;
  /** Workflow type to start; tests use workflows built with extra tools. */
  workflowType?: string;
  /**
   * Whether a job may start under the id of one that has ended (Temporal's default: yes, unless
   * it completed). `REJECT_DUPLICATE`: never; the start fails with
   * `WorkflowExecutionAlreadyStartedError` as for a running job.
   */
  workflowIdReusePolicy?: WorkflowStartOptions['workflowIdReusePolicy'];
}

/**
 * A typed handle on one agent job. Its events, status and transcript are read from the job
 * store, without asking a worker: a finished job reads at once with no worker running, and no
 * reader can make the workflow answer a huge query. Jobs started before the job store existed
 * are read through their queries instead.
 */
export class AgentJob {
  private readonly read: ReadObject | undefined;
  private firstRelease: Promise<boolean> | undefined;

  constructor(
    readonly handle: WorkflowHandle,
    readonly store?: JobStore,
  ) {
    this.read = store ? cachedReader(store) : undefined;
  }

  get workflowId(): string {
    return this.handle.workflowId;
  }

  /** The status the job last wrote to the store; undefined before its first write. */
  async storedStatus(): Promise<StoredJobStatus | undefined> {
    return this.store ? readStoredStatus(this.store, this.workflowId) : undefined;
  }

  async status(): Promise<JobStatus> {
    const stored = await this.storedStatus();
    if (stored) return withoutTranscript(stored);
    if (await this.isFirstRelease()) return this.handle.query(statusQuery);
    return notStartedStatus();
  }

  /**
   * Whether the job runs the first release's code (its events and transcript answer queries):
   * its current run has completed a workflow task without recording the `dar-job-store` patch.
   * A job that has not run yet is a current one. Asked only when the store has nothing for it,
   * so that a current job is never read through a query (which a worker would have to answer).
   */
  private async isFirstRelease(): Promise<boolean> {
    this.firstRelease ??= firstReleaseJob(this.handle);
    return this.firstRelease;
  }

  /** Events after `afterSeq` (at most `limit`), in order, whole. */
  async events(afterSeq = 0, limit = EVENT_PAGE_SIZE): Promise<SequencedEvent[]> {
    if (this.store && this.read) {
      const page = await readStoredEvents(this.store, this.read, this.workflowId, afterSeq, limit);
      if (page.length > 0 || (await this.storedStatus()) || !(await this.isFirstRelease())) {
        return page;
      }
    }
    return this.legacyQuery(() => this.handle.query(eventsQuery, afterSeq, limit));
  }

  /**
   * Waits for the job to close (following continue-as-new) and returns its result with the
   * whole transcript, read from the store (a first-release job's result holds it already).
   * Rejects like the workflow's result does (cancelled, failed).
   */
  async result(): Promise<AgentJobResult & { messages: Message[] }> {
    const result = (await this.handle.result()) as AgentJobResult;
    if (result.messages) return { ...result, messages: result.messages };
    if (!result.transcript || !this.read) return { ...result, messages: [] };
    return { ...result, messages: await loadTranscript(this.read, result.transcript) };
  }

  /** Every event after `afterSeq` so far, read page by page until a page is empty. */
  async allEvents(afterSeq = 0): Promise<SequencedEvent[]> {
    const events: SequencedEvent[] = [];
    let seq = afterSeq;
    for (;;) {
      const page = await this.events(seq);
      const last = page.at(-1);
      if (!last) return events;
      events.push(...page);
      seq = last.seq;
    }
  }

  /** The whole transcript so far (as last written to the store), whole. */
  async transcript(): Promise<Message[]> {
    const stored = await this.storedStatus();
    if (stored && this.read) return loadTranscript(this.read, stored.transcript);
    if (!(await this.isFirstRelease())) return [];
    // A first-release job answers in pages of about 1 MiB.
    const messages: Message[] = [];
    for (;;) {
      const page = await this.legacyQuery(() =>
        this.handle.query(transcriptQuery, messages.length),
      );
      if (page.length === 0) return messages;
      messages.push(...page);
    }
  }

  /**
   * A job of the first release answers queries for its events; a current one has no such
   * query and has written nothing yet when this is reached: nothing to read so far.
   */
  private async legacyQuery<T>(query: () => Promise<T[]>): Promise<T[]> {
    try {
      return await query();
    } catch (error) {
      if (error instanceof QueryNotRegisteredError) return [];
      throw error;
    }
  }

  /**
   * Queues a steering message (R20). Refused before it is sent: an empty (or white-space only)
   * one (`EmptyMessageError`), one over `MAXIMUM_USER_MESSAGE_LENGTH` (`MessageTooLongError`).
   */
  async steer(text: string): Promise<void> {
    checkMessageLength('The steering message', text);
    checkMessageNotEmpty('The steering message', text);
    return sendingPayload('The steering message', text, () =>
      this.handle.signal(steerSignal, text),
    );
  }

  /** Queues a follow-up message (R20); refused before it is sent as `steer`'s is. */
  async followUp(text: string): Promise<void> {
    checkMessageLength('The follow-up message', text);
    checkMessageNotEmpty('The follow-up message', text);
    return sendingPayload('The follow-up message', text, () =>
      this.handle.signal(followUpSignal, text),
    );
  }

  /** Cancelling is aborting (R21): running tools are stopped, the run ends with agent_end. */
  cancel(): Promise<void> {
    return this.handle.cancel().then(() => undefined);
  }

  /** Passes on the live events after `afterLiveSeq` still current; returns the new cursor. */
  private async passLiveEvents(
    afterLiveSeq: number,
    filter: LiveFilter,
    live: LiveFollowOptions,
    upToCall?: number,
  ): Promise<number> {
    const store = this.store as JobStore;
    const page = await store.readLiveEvents(this.workflowId, { afterSeq: afterLiveSeq });
    if (page.length === 0) return afterLiveSeq;
    const status = await this.storedStatus();
    let cursor = afterLiveSeq;
    for (const stored of page) {
      const value: unknown = stored.event;
      const later =
        upToCall !== undefined &&
        isLiveEvent(value) &&
        value.type !== 'tool_execution_update' &&
        value.callIndex > upToCall;
      // A later call's events wait until the job event being passed is.
      if (later) break;
      cursor = stored.seq;
      if (!isLiveEvent(stored.event)) continue;
      const event = { ...stored.event, liveSeq: stored.seq } as SequencedLiveEvent;
      if (filter.isCurrent(event, status)) await live.onLive(event);
    }
    return cursor;
  }

  /**
   * Calls `onEvent` for each event after `afterSeq`, in order, until `agent_end` (or the signal
   * aborts; with `endAfterSeq`, an `agent_end` after it); with `untilClosed`, past each
   * `agent_end` until the job has ended (a kept-open job runs again on a follow-up). A follow
   * that the job's end stops returns the last `agent_end` it passed on. Reads the store; numbering goes
   * on across continue-as-new. A job that closed without an `agent_end` after `afterSeq`
   * (terminated, say) ends the follow with undefined once its events are read.
   */
  async follow(
    onEvent: (event: SequencedEvent) => void | Promise<void>,
    options: FollowOptions = {},
  ): Promise<SequencedEvent | undefined> {
    let afterSeq = options.afterSeq ?? 0;
    const live = this.store ? options.live : undefined;
    const pollMs = live ? (live.pollMs ?? 50) : (options.pollMs ?? 200);
    let afterLiveSeq = live?.afterLiveSeq ?? 0;
    const filter = new LiveFilter();
    let lastEnd: SequencedEvent | undefined;
    const endAfterSeq = options.endAfterSeq ?? 0;
    // Whether the follow may go past the end of a run, until the job ends.
    const followsPastRun = options.untilClosed === true || options.endAfterSeq !== undefined;
    // A job that closes without writing `agent_end` or `done` (terminated, timed out, failed
    // before its first event) ends the follow too: Temporal is asked while no event comes.
    const closure = new ClosureCheck(this.handle);
    for (;;) {
      options.signal?.throwIfAborted();
      const events = await this.events(afterSeq);
      for (const event of events) {
        const upToCall = live ? filter.liveCallsBefore(event) : undefined;
        if (live && upToCall !== undefined) {
          afterLiveSeq = await this.passLiveEvents(afterLiveSeq, filter, live, upToCall);
        }
        await onEvent(event);
        filter.noteEvent(event);
        afterSeq = event.seq;
        if (event.type !== 'agent_end') continue;
        if (!options.untilClosed && event.seq > endAfterSeq) return event;
        lastEnd = event;
      }
      if (live) afterLiveSeq = await this.passLiveEvents(afterLiveSeq, filter, live);
      if (events.length > 0) continue;
      // The job writes phase `done` after its last event: once it is read, an empty page is the end.
      const done = followsPastRun && (await this.storedStatus())?.phase === 'done';
      if (done || (await closure.closed())) {
        if ((await this.events(afterSeq, 1)).length === 0) return lastEnd;
        continue;
      }
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }
}

export function startJob(
  client: Client,
  input: AgentJobInput,
  options: StartJobOptions & { store?: JobStore } = {},
): Promise<AgentJob> {
  const workflowId = options.workflowId ?? `agent-${crypto.randomUUID()}`;
  try {
    checkNewJobId(workflowId);
    // Within the workflow's checks (a bad policy fails the job as BadInput), but past a size limit.
    checkPolicyLimits(input.policy);
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
  return sendingPayload("The job's input", input, () =>
    startWithJobAttributes((typedSearchAttributes) =>
      client.workflow.start(options.workflowType ?? AGENT_WORKFLOW_TYPE, {
        taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
        workflowId,
        args: [input],
        typedSearchAttributes,
        ...(options.workflowIdReusePolicy
          ? { workflowIdReusePolicy: options.workflowIdReusePolicy }
          : {}),
      }),
    ),
  ).then((handle) => new AgentJob(handle, options.store));
}

export function getJob(client: Client, workflowId: string, store?: JobStore): AgentJob {
  return new AgentJob(client.workflow.getHandle(workflowId), store);
}
