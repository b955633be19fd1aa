import { ApplicationFailure } from '@temporalio/common';
import type {
  AssistantMessage,
  Message,
  ToolDescriptor,
  ToolExecutionResult,
} from '../core/index.js';
import type { JobStore } from '../store/job-store.js';
import { isRetryableStoreError } from '../store/store-errors.js';
import { cachedReader } from '../transcript/cached-reader.js';
import {
  appendToTranscript,
  hydrateMessage,
  loadTranscript,
  thinAssistantMessage,
} from '../transcript/transcript-nodes.js';
import type { JobStatus, TranscriptPointer } from '../workflows/job-types.js';
import { callModel } from './call-model.js';
import type { ProviderPauses } from './provider-pauses.js';
import type { ExecuteToolInput } from './execute-tool.js';
import { STORE_UNAVAILABLE, withStoreRetry } from './store-retry.js';

/** The transcript as the workflow knows it: what is stored, and the messages not stored yet. */
export interface TranscriptInput {
  pointer: TranscriptPointer;
  /** Thin messages after the stored ones, in order. */
  unstored: Message[];
}

export interface CallModelWithStoreInput {
  jobId: string;
  /** `provider:model-id`. Never a key: providers read secrets themselves (R25). */
  model: string;
  /** Which model call of the job this is, from 0. */
  callIndex: number;
  systemPrompt: string;
  tools: ToolDescriptor[];
  transcript: TranscriptInput;
}

export interface CallModelWithStoreResult {
  /** The answer's thin form: tool calls, stop reason, usage, and the stored whole's reference. */
  message: AssistantMessage;
  /** The stored transcript, now ending with the answer. */
  transcript: TranscriptPointer;
}

export interface ExecuteToolWithStoreInput extends ExecuteToolInput {
  jobId: string;
}

export interface RecordProgressInput {
  jobId: string;
  events: { seq: number; event: unknown }[];
  status: JobStatus;
  transcript: TranscriptInput;
}

export interface RecordProgressResult {
  transcript: TranscriptPointer;
}

/** Store record namespace of each job's latest status (key: the workflow id). */
export const JOB_STATUS_RECORD = 'job-status';

/** A job's status as stored: the status query's answer and where the transcript is. */
export type StoredJobStatus = JobStatus & { transcript: TranscriptPointer };

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

/**
 * The activities that move a job's data through the job store. The workflow sends and receives
 * references and small facts; whole messages, tool output and events stay out of history.
 */
export function createStoreActivities(
  store: JobStore,
  executeTool: (input: ExecuteToolInput) => Promise<ToolExecutionResult>,
  pauses?: ProviderPauses,
) {
  const read = cachedReader(store);

  /** The model call of one turn (R1), on the stored transcript. */
  async function callModelWithStore(
    input: CallModelWithStoreInput,
  ): Promise<CallModelWithStoreResult> {
    const messages = await withStoreRetry(async () => [
      ...(await loadTranscript(read, input.transcript.pointer)),
      ...(await Promise.all(
        input.transcript.unstored.map((message) => hydrateMessage(read, message)),
      )),
    ]);
    const answer = await callModel(
      {
        model: input.model,
        callIndex: input.callIndex,
        request: { systemPrompt: input.systemPrompt, messages, tools: input.tools },
      },
      pauses,
    );
    // The answer is paid for: wait out a store outage rather than fail and pay again.
    return withStoreRetry(async () => {
      const message = thinAssistantMessage(answer, await store.putObject(answer));
      const transcript = await appendToTranscript(store, input.transcript.pointer, [
        ...input.transcript.unstored,
        message,
      ]);
      return { message, transcript };
    });
  }

  /** One prepared call's body; its content and details are stored, a reference comes back. */
  async function executeToolWithStore(
    input: ExecuteToolWithStoreInput,
  ): Promise<ToolExecutionResult> {
    const result = await executeTool(input);
    // The body has run (and may not be safe to run again): wait out a store outage.
    const contentRef = await withStoreRetry(() =>
      store.putObject({ content: result.content, details: result.details ?? null }),
    );
    return {
      content: [],
      ...(result.terminate === undefined ? {} : { terminate: result.terminate }),
      contentRef,
    };
  }

  return { callModelWithStore, executeToolWithStore, recordProgress: makeRecordProgress(store) };
}

/**
 * The progress recorder's local activity on its own: a worker that runs only workflows (to
 * answer a query) still runs the local activities of the workflow tasks it takes.
 */
export function makeRecordProgress(store: JobStore) {
  /**
   * Writes a job's new events, the messages not stored yet and its status (a local activity:
   * its input never enters history). Idempotent: run again with the same input, it stores
   * nothing new. A store outage fails it as retryable; the workflow retries it with backoff.
   */
  return async function recordProgress(input: RecordProgressInput): Promise<RecordProgressResult> {
    try {
      const transcript = await appendToTranscript(
        store,
        input.transcript.pointer,
        input.transcript.unstored,
      );
      const events = input.events.map(({ seq, event }) =>
        isAgentEndRange(event)
          ? {
              seq,
              event: { ...event, messagesRange: { ...event.messagesRange, head: transcript.head } },
            }
          : { seq, event },
      );
      if (events.length > 0) await store.appendEvents(input.jobId, events);
      const status: StoredJobStatus = { ...input.status, transcript };
      await store.putRecord(JOB_STATUS_RECORD, input.jobId, status);
      return { transcript };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (isRetryableStoreError(error)) {
        throw ApplicationFailure.retryable(`Job store unavailable: ${message}`, STORE_UNAVAILABLE);
      }
      throw ApplicationFailure.nonRetryable(`Job store: ${message}`, 'JobStoreError');
    }
  };
}
