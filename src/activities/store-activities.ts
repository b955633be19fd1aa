import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type {
  AssistantMessage,
  Message,
  ToolDescriptor,
  ToolExecutionResult,
  UserMessage,
} from '../core/index.js';
import type { JobStore } from '../store/job-store.js';
import { NotJsonError } from '../store/canonical-json.js';
import {
  describeStoreError,
  isRetryableStoreError,
  ObjectNotFound,
} from '../store/store-errors.js';
import { estimateMessageTokens } from '../compaction/token-estimate.js';
import { modelContextWindow } from '../providers/context-window.js';
import { objectCache } from '../transcript/cached-reader.js';
import { loadModelContext, type TranscriptInput } from '../transcript/model-context.js';
import { thinAssistantMessage, transcriptNode } from '../transcript/transcript-nodes.js';
import type { CompactedContext, TranscriptPointer } from '../workflows/job-types.js';
import { callModel } from './call-model.js';
import { makeCompactContext } from './compact-context.js';
import { progressWriterFor, type ProgressWrite } from './progress-writer.js';
import type { ProviderPauses } from './provider-pauses.js';
import { TOOL_FAILURE, type ExecuteToolInput } from './execute-tool.js';
import { openLiveModelCall } from '../live/live-model-call.js';
import { openLiveToolCall } from '../live/live-tool-call.js';
import { streamSettingsFromEnvironment } from '../live/stream-settings.js';
import type { ToolExecutionContext } from '../tools/tool-implementation.js';
import { STORE_UNAVAILABLE, withStoreRetry } from './store-retry.js';
import { providerOf } from '../workflows/model-task-queue.js';
import type { JsonValue, ObjectRef } from '../store/references.js';
import { isModelSetup, worthStoring, type ModelSetup } from './model-setup.js';
import {
  rememberedAnswer,
  isStoredAnswer,
  rememberAnsweredCall,
  type StoredAnswer,
} from './answered-calls.js';
import {
  PAUSE_AFTER_MODEL_ANSWER,
  PAUSE_AFTER_TOOL_RESULT,
  pauseForTest,
} from '../tools/test-pause.js';
import {
  lookUpToolCallEnding,
  rememberToolCallEnding,
  type ToolCallActivity,
  type ToolCallEnding,
} from './answered-tool-calls.js';

export type { TranscriptInput } from '../transcript/model-context.js';

export interface CallModelWithStoreInput {
  jobId: string;
  /** `provider:model-id`. Never a key: providers read secrets themselves (R25). */
  model: string;
  /** Which model call of the job this is, from 0. */
  callIndex: number;
  systemPrompt: string;
  tools: ToolDescriptor[];
  transcript: TranscriptInput;
  /** Set once the job compacted: the model gets the summary and the kept messages. */
  context?: CompactedContext;
  /** The job's turn (model turns so far), for the live stream's deltas. */
  turn?: number;
}

/**
 * `callModelOnStoredSetup`'s input: the system prompt and the tools by the reference of a
 * setup an earlier call of the run stored (`CallModelWithStoreResult.setupRef`).
 */
export type CallModelOnStoredSetupInput = Omit<
  CallModelWithStoreInput,
  'systemPrompt' | 'tools'
> & {
  setupRef: ObjectRef;
};

export interface CallModelWithStoreResult {
  /** The answer's thin form: tool calls, stop reason, usage, and the stored whole's reference. */
  message: AssistantMessage;
  /** The stored transcript, now ending with the answer. */
  transcript: TranscriptPointer;
  /** The model's context window, when its provider knows it. */
  contextWindow?: number;
  /** Estimated tokens of the messages sent and the answer (for providers that report no usage). */
  estimatedContextTokens?: number;
  /**
   * Whether the worker that made the call paces the model's provider (`DAR_MODEL_RATE`): the
   * workflow keeps the job's next calls on the provider's task queue when it does, and sends
   * them on its own queue (eager start, no pacing to honour) when it does not.
   */
  providerPaced?: boolean;
  /**
   * The stored setup's reference (system prompt and tools), when the setup is large enough to
   * be worth storing (`SETUP_BY_REFERENCE_FROM_CHARACTERS`): the run's later calls with the same
   * setup send it instead, through `callModelOnStoredSetup`.
   */
  setupRef?: ObjectRef;
}

/**
 * What `callModelUnlessPaced` answers on a worker that paces the model's provider: it made no
 * call, and the workflow makes it on the provider's task queue, where the pacing applies.
 */
export interface ModelCallLeftToPacing {
  notCalled: 'provider-paced';
}

export interface ExecuteToolWithStoreInput extends ExecuteToolInput {
  jobId: string;
  /**
   * Remember how the call ended (`answered-tool-calls.ts`), for a tool that is not replay-safe:
   * when the attempt's completion is lost, the workflow looks its ending up instead of telling the
   * model the call was interrupted. Release `2026-12h` on.
   */
  rememberEnding?: boolean;
  /** The job's turn, for the live stream's output updates. */
  turn?: number;
}

export interface ExecuteToolWithStoreResult extends ToolExecutionResult {
  /** Estimated tokens of the stored content, for deciding when to compact the context. */
  estimatedTokens?: number;
}

/** A durable write of a job's progress (the progress recorder's local activity). */
export type RecordProgressInput = ProgressWrite;

export interface RecordProgressResult {
  transcript: TranscriptPointer;
}

export { JOB_STATUS_RECORD, type StoredJobStatus } from './job-status-record.js';

/** Whether this worker streams (read per call, so that a test or bench can switch it). */
function streamingEnabled(): boolean {
  try {
    return streamSettingsFromEnvironment().enabled;
  } catch {
    return true; // the worker checked the setting at start; a later change must not fail calls
  }
}

/** A live write failed: said once per call, the call goes on (live events are best effort). */
function warnLiveFailure(error: unknown): void {
  Context.current().log.warn('Live stream not written (best effort; the final message is)', {
    error: error instanceof Error ? error.message : String(error),
  });
}

/**
 * The activities that move a job's data through the job store. The workflow sends and receives
 * references and small facts; whole messages, tool output and events stay out of history.
 */
export function createStoreActivities(
  store: JobStore,
  executeTool: (
    input: ExecuteToolInput,
    onUpdate?: ToolExecutionContext['onUpdate'],
  ) => Promise<ToolExecutionResult>,
  pauses?: ProviderPauses,
  pacedProviders: ReadonlySet<string> = new Set(),
) {
  // The model call reads back what the previous one wrote: kept as written, not read again.
  const objects = objectCache(store);
  const read = objects.read;

  /**
   * The model call of one turn (R1), on the stored transcript, with its setup by value: a setup
   * worth storing is stored beside the answer, and its reference returned.
   */
  async function callModelWithStore(
    input: CallModelWithStoreInput,
  ): Promise<CallModelWithStoreResult> {
    const { systemPrompt, tools, ...call } = input;
    const setup = { systemPrompt, tools };
    return modelCall(call, setup, worthStoring(setup) ? 'store' : 'unstored');
  }

  /**
   * The model call of one turn with its setup by reference. A name of its own, so that a worker
   * of an earlier release, which would make the call without a system prompt or tools, never
   * makes it: it fails the task as not registered, and the workflow sends the setup by value.
   */
  async function callModelOnStoredSetup(
    input: CallModelOnStoredSetupInput,
  ): Promise<CallModelWithStoreResult> {
    const { setupRef, ...call } = input;
    const setup = await withStoreRetry(() => read(setupRef));
    if (!isModelSetup(setup)) {
      throw ApplicationFailure.nonRetryable(
        `Stored model setup ${setupRef} is not a system prompt with tools`,
        'JobStoreError',
      );
    }
    return modelCall(call, setup, setupRef);
  }

  /**
   * One model call. `setupRef`: the setup's reference when it is stored already, `store` to
   * store it with the answer, `unstored` to leave it out of the store (too small to be worth it).
   * A retry of a call whose answer an earlier attempt stored returns that answer: the provider
   * is paid once (see `answered-calls.ts`).
   */
  async function modelCall(
    input: Omit<CallModelWithStoreInput, 'systemPrompt' | 'tools'>,
    setup: ModelSetup,
    setupRef: ObjectRef | 'store' | 'unstored',
  ): Promise<CallModelWithStoreResult> {
    const { messages, earlier } = await withStoreRetry(async () => ({
      messages: await loadModelContext(read, input.transcript, input.context),
      earlier: await earlierStoredAnswer(input.jobId),
    }));
    const earlierAnswer = earlier && (await withStoreRetry(() => readIfStored(earlier.answer)));
    if (earlier && earlierAnswer) {
      const answer = earlierAnswer as unknown as AssistantMessage;
      return answerResult(input, messages, answer, earlier, setupRef);
    }
    const live = streamingEnabled()
      ? openLiveModelCall(
          store,
          input.jobId,
          {
            ...(input.turn === undefined ? {} : { turn: input.turn }),
            callIndex: input.callIndex,
            attempt: Context.current().info.attempt,
          },
          warnLiveFailure,
        )
      : undefined;
    let answer: AssistantMessage;
    try {
      answer = await callModel(
        {
          model: input.model,
          callIndex: input.callIndex,
          request: { systemPrompt: setup.systemPrompt, messages, tools: setup.tools },
        },
        pauses,
        {
          ...(live ? { onStreamEvent: live.onStreamEvent } : {}),
          paced: pacedProviders.has(providerOf(input.model)),
        },
      );
    } finally {
      await live?.finish();
    }
    // The answer is paid for: wait out a store outage rather than fail and pay again.
    // The answer and the node that appends it are stored together: the node names the answer
    // by the reference the store will give it (an encrypting store's differs from the plain
    // content's hash), which `prepare` tells before anything is written.
    const stored = await withStoreRetry(async () => {
      const preparedAnswer = objects.prepare(answer);
      const message = thinAssistantMessage(answer, preparedAnswer.ref);
      const node = transcriptNode(input.transcript.pointer, [
        ...input.transcript.unstored,
        message,
      ]);
      const preparedNode = objects.prepare(node);
      const preparedSetup = setupRef === 'store' ? objects.prepare(setup) : undefined;
      await objects.putPrepared([
        { value: answer, prepared: preparedAnswer },
        { value: node, prepared: preparedNode },
        ...(preparedSetup ? [{ value: setup, prepared: preparedSetup }] : []),
      ]);
      const refs: StoredAnswer = {
        answer: preparedAnswer.ref,
        node: preparedNode.ref,
        ...(preparedSetup ? { setup: preparedSetup.ref } : {}),
      };
      await rememberAnsweredCall(store, input.jobId, refs);
      return refs;
    });
    await pauseForTest(PAUSE_AFTER_MODEL_ANSWER);
    return answerResult(input, messages, answer, stored, setupRef);
  }

  /**
   * What the workflow gets back for `answer`, stored under `stored`'s references, on the setup
   * `setupRef` named (`store`: the one `stored` names).
   */
  async function answerResult(
    input: Omit<CallModelWithStoreInput, 'systemPrompt' | 'tools'>,
    messages: readonly Message[],
    answer: AssistantMessage,
    stored: StoredAnswer,
    setupRef: ObjectRef | 'store' | 'unstored',
  ): Promise<CallModelWithStoreResult> {
    const storedSetupRef = setupRef === 'store' ? stored.setup : setupRef;
    const contextWindow = await modelContextWindow(input.model);
    const estimatedContextTokens = [...messages, answer].reduce(
      (sum, message) => sum + estimateMessageTokens(message),
      0,
    );
    return {
      message: thinAssistantMessage(answer, stored.answer),
      transcript: {
        head: stored.node,
        count: input.transcript.pointer.count + input.transcript.unstored.length + 1,
      },
      estimatedContextTokens,
      ...(contextWindow === undefined ? {} : { contextWindow }),
      providerPaced: pacedProviders.has(providerOf(input.model)),
      ...(storedSetupRef === undefined || storedSetupRef === 'unstored'
        ? {}
        : { setupRef: storedSetupRef }),
    };
  }

  /** The references an earlier attempt of this call stored, when one got that far. */
  async function earlierStoredAnswer(jobId: string): Promise<StoredAnswer | undefined> {
    const remembered = await rememberedAnswer(store, jobId);
    return isStoredAnswer(remembered) ? remembered : undefined;
  }

  /** An object, or undefined when it is missing (a record that outlived it in a power loss). */
  async function readIfStored(ref: ObjectRef): Promise<JsonValue | undefined> {
    try {
      return await read(ref);
    } catch (error) {
      if (error instanceof ObjectNotFound) return undefined;
      throw error;
    }
  }

  /**
   * A run's first model call (release `2026-12e`), sent on the job's own task queue before the
   * workflow knows whether its workers pace the provider: a worker that does makes no call and
   * says so (the call then goes to the provider's queue); one that does not makes it, as
   * `callModelWithStore`. A name of its own, so that a worker of an earlier release, which would
   * make the call whatever its pacing, never makes it: it fails the task as not registered, and
   * the workflow makes the call on the provider's queue.
   */
  async function callModelUnlessPaced(
    input: CallModelWithStoreInput,
  ): Promise<CallModelWithStoreResult | ModelCallLeftToPacing> {
    if (pacedProviders.has(providerOf(input.model))) return { notCalled: 'provider-paced' };
    return callModelWithStore(input);
  }

  /**
   * Stores a call's output. The result is plain JSON already (`boundToolResult`); one the store
   * still refuses (nested past its depth limit) is stored as a note saying why, since the body
   * has run and the call must not fail for it.
   */
  async function putToolOutput(output: { content: unknown; details: unknown }): Promise<ObjectRef> {
    try {
      return await objects.putObject(output);
    } catch (error) {
      if (!(error instanceof NotJsonError)) throw error;
      const note = `[The tool's output was dropped: the job store cannot keep it (${error.message}).]`;
      return objects.putObject({ content: [{ type: 'text', text: note }], details: null });
    }
  }

  /** One prepared call's body; its content and details are stored, a reference comes back. */
  async function executeToolWithStore(
    input: ExecuteToolWithStoreInput,
  ): Promise<ExecuteToolWithStoreResult> {
    const live = streamingEnabled()
      ? openLiveToolCall(store, input, Context.current().info.attempt, warnLiveFailure)
      : undefined;
    let result;
    try {
      result = await executeTool(input, live?.onUpdate);
    } catch (error) {
      // The body's own error is the call's answer: remembered like a result (see below).
      if (
        input.rememberEnding &&
        error instanceof ApplicationFailure &&
        error.type === TOOL_FAILURE
      ) {
        const failure = error.message;
        await withStoreRetry(() => rememberToolCallEnding(store, { failure }));
      }
      throw error;
    } finally {
      await live?.finish();
    }
    // The body has run (and may not be safe to run again): wait out a store outage.
    const contentRef = await withStoreRetry(() =>
      putToolOutput({ content: result.content, details: result.details ?? null }),
    );
    const estimatedTokens = estimateMessageTokens({
      role: 'toolResult',
      toolCallId: input.toolCallId,
      toolName: input.toolName,
      content: result.content,
      isError: false,
      timestamp: 0,
    });
    const answer: ExecuteToolWithStoreResult = {
      content: [],
      ...(result.terminate === undefined ? {} : { terminate: result.terminate }),
      // Small and the workflow's to carry onto the tool result message.
      ...(result.usage == null ? {} : { usage: result.usage }),
      contentRef,
      estimatedTokens,
    };
    if (input.rememberEnding) {
      await withStoreRetry(() => rememberToolCallEnding(store, { result: answer }));
      await pauseForTest(PAUSE_AFTER_TOOL_RESULT);
    }
    return answer;
  }

  return {
    callModelWithStore,
    callModelOnStoredSetup,
    callModelUnlessPaced,
    executeToolWithStore,
    compactContext: makeCompactContext(store, read, pauses, pacedProviders),
    ...makeLocalActivities(store),
  };
}

/**
 * The local activities on their own: a worker that runs only workflows (to answer a query)
 * still runs the local activities of the workflow tasks it takes.
 */
export function makeLocalActivities(store: JobStore) {
  return {
    recordProgress: makeRecordProgress(store),
    storeCarriedMessages: makeStoreCarriedMessages(store),
    /**
     * How the lost attempt of a call of a tool that is not replay-safe ended, when it got as far
     * as remembering it (`ExecuteToolWithStoreInput.rememberEnding`); null otherwise.
     */
    async lookUpToolCallEnding(
      activity: ToolCallActivity,
    ): Promise<ToolCallEnding<ExecuteToolWithStoreResult> | null> {
      try {
        return await lookUpToolCallEnding<ExecuteToolWithStoreResult>(store, activity);
      } catch (error) {
        // An outage: retried by the local activity's policy, the job waits for the store. A
        // record that cannot be read counts as none: the call is reported interrupted.
        if (isRetryableStoreError(error)) throw error;
        return null;
      }
    },
  };
}

export interface StoreCarriedMessagesInput {
  messages: UserMessage[];
}

export interface StoreCarriedMessagesResult {
  /** The stored messages' references, in the order given. */
  refs: string[];
}

/**
 * Stores queued messages whole before a job continues as new, so that the next run's input
 * carries their references (a local activity: its input never enters history). Idempotent:
 * content addressing stores each message once however often it runs.
 */
function makeStoreCarriedMessages(store: JobStore) {
  return async function storeCarriedMessages(
    input: StoreCarriedMessagesInput,
  ): Promise<StoreCarriedMessagesResult> {
    try {
      return { refs: await store.putObjects(input.messages) };
    } catch (error) {
      throw storeFailure(error);
    }
  };
}

/** A store error as the workflow should see it: retryable while the store is unavailable. */
function storeFailure(error: unknown): ApplicationFailure {
  const message = describeStoreError(error);
  if (isRetryableStoreError(error)) {
    return ApplicationFailure.retryable(`Job store unavailable: ${message}`, STORE_UNAVAILABLE);
  }
  return ApplicationFailure.nonRetryable(`Job store: ${message}`, 'JobStoreError');
}

/** The progress recorder's local activity. */
function makeRecordProgress(store: JobStore) {
  /**
   * Writes a job's new events, the messages not stored yet and its status (a local activity:
   * its input never enters history). Idempotent: run again with the same input, it stores
   * nothing new. A store outage fails it as retryable; the workflow retries it with backoff.
   */
  const writer = progressWriterFor(store);
  return async function recordProgress(input: RecordProgressInput): Promise<RecordProgressResult> {
    try {
      return { transcript: await writer.write(input) };
    } catch (error) {
      throw storeFailure(error);
    }
  };
}
