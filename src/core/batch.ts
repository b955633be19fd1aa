import type { ToolBatchEffects } from './effects.js';
import { argumentsChangedInPlaceText, isFrozenWriteError } from './frozen-arguments.js';
import type { AgentEvent } from './events.js';
import type { AfterToolCallHook, BeforeToolCallHook, RunContext } from './hooks.js';
import { andThen, emitMessage, isPromiseLike, type MaybePromise } from './emit-steps.js';
import type { AssistantMessage, ToolCall, ToolResultMessage } from './messages.js';
import {
  preflightNow,
  preflightToolCall,
  type AwaitingApprovalToolCall,
  type PreflightInput,
  type PreparedToolCall,
} from './preflight.js';
import type { ToolExecutionMode, ToolSpec } from './tool-spec.js';
import {
  OPERATION_ABORTED,
  errorResult,
  messageOf,
  toolResultMessage,
  truncatedToolCallText,
  type FinalizedToolCall,
} from './tool-results.js';

export interface ToolBatchConfig {
  tools: ReadonlyMap<string, ToolSpec>;
  toolExecution: ToolExecutionMode;
  beforeToolCall?: BeforeToolCallHook | undefined;
  afterToolCall?: AfterToolCallHook | undefined;
  /** Await every `emit` (see `AgentLoopOptions.awaitEveryEmit`). Default false. */
  awaitEveryEmit?: boolean;
  /** A call's steps without a promise each (`AgentLoopOptions.syncToolSteps`). Default true. */
  syncToolSteps?: boolean;
}

export interface ToolBatchInput {
  assistantMessage: AssistantMessage;
  toolCalls: ToolCall[];
  config: ToolBatchConfig;
  context: RunContext;
  effects: ToolBatchEffects;
}

export interface ToolBatchOutcome {
  /** One per call, in source order (R4, R15). */
  messages: ToolResultMessage[];
  /** True when every result asked to terminate (R18). */
  terminate: boolean;
}

/** R13 */
export function batchMode(toolCalls: ToolCall[], config: ToolBatchConfig): ToolExecutionMode {
  if (config.toolExecution === 'sequential') return 'sequential';
  const anySequential = toolCalls.some(
    (call) => config.tools.get(call.name)?.executionMode === 'sequential',
  );
  return anySequential ? 'sequential' : 'parallel';
}

function failed(toolCall: ToolCall, text: string): FinalizedToolCall {
  return { toolCall, result: errorResult(text), isError: true };
}

/** Runs a batch (R13-R19) and returns its result messages. */
export async function executeToolBatch(input: ToolBatchInput): Promise<ToolBatchOutcome> {
  const batch = new ToolBatch(input);
  const { finalized, messages } =
    batchMode(input.toolCalls, input.config) === 'sequential'
      ? await batch.runSequential()
      : await batch.runParallel();
  return {
    messages,
    terminate: finalized.length > 0 && finalized.every((call) => call.result.terminate === true),
  };
}

/**
 * R3: a message cut off by the output token limit. Every call fails, without lookup,
 * preparation, validation, hook or execution, in source order.
 */
export async function answerTruncatedToolCalls(
  toolCalls: ToolCall[],
  effects: ToolBatchEffects,
  awaitEveryEmit = false,
): Promise<ToolBatchOutcome> {
  const emits = batchEmits(effects, awaitEveryEmit);
  const messages: ToolResultMessage[] = [];
  for (const toolCall of toolCalls) {
    const started = emits.start(toolCall);
    if (started !== undefined) await started;
    const finalized = failed(toolCall, truncatedToolCallText(toolCall.name));
    const ended = emits.end(finalized);
    if (ended !== undefined) await ended;
    const published = emits.publish(finalized);
    messages.push(isPromiseLike(published) ? await published : published);
  }
  return { messages, terminate: false };
}

/** How a batch emits its events, by the loop's `awaitEveryEmit`. */
interface BatchEmits {
  start(toolCall: ToolCall): MaybePromise<void>;
  end(finalized: FinalizedToolCall): MaybePromise<void>;
  /** The call's result message, once its `message_start` and `message_end` are emitted. */
  publish(finalized: FinalizedToolCall): MaybePromise<ToolResultMessage>;
}

/**
 * Every step a promise, awaited (the timing of runs recorded before `awaitEveryEmit` existed,
 * kept to the microtask), or steps that finish at once when the host's emit does.
 */
function batchEmits(effects: ToolBatchEffects, awaitEveryEmit: boolean): BatchEmits {
  if (awaitEveryEmit) {
    return {
      start: (toolCall) => emitStart(toolCall, effects),
      end: (finalized) => emitEnd(finalized, effects),
      publish: (finalized) => publishResult(finalized, effects),
    };
  }
  return {
    start: (toolCall) => effects.emit(startEvent(toolCall)),
    end: (finalized) => effects.emit(endEvent(finalized)),
    publish(finalized) {
      const message = toolResultMessage(finalized, effects.now());
      return andThen(emitMessage(effects, message), () => message);
    },
  };
}

function startEvent(toolCall: ToolCall): AgentEvent {
  return {
    type: 'tool_execution_start',
    toolCallId: toolCall.id,
    toolName: toolCall.name,
    args: toolCall.arguments,
  };
}

function endEvent(finalized: FinalizedToolCall): AgentEvent {
  return {
    type: 'tool_execution_end',
    toolCallId: finalized.toolCall.id,
    toolName: finalized.toolCall.name,
    result: finalized.result,
    isError: finalized.isError,
  };
}

async function emitStart(toolCall: ToolCall, effects: ToolBatchEffects): Promise<void> {
  await effects.emit(startEvent(toolCall));
}

async function emitEnd(finalized: FinalizedToolCall, effects: ToolBatchEffects): Promise<void> {
  await effects.emit(endEvent(finalized));
}

async function publishResult(
  finalized: FinalizedToolCall,
  effects: ToolBatchEffects,
): Promise<ToolResultMessage> {
  const message = toolResultMessage(finalized, effects.now());
  await effects.emit({ type: 'message_start', message });
  await effects.emit({ type: 'message_end', message });
  return message;
}

/** A batch's finalized calls and their published result messages, both in source order. */
interface PublishedBatch {
  finalized: FinalizedToolCall[];
  messages: ToolResultMessage[];
}

/** A call's state between its steps: answered, prepared, or waiting for approval. */
type CallSlot = FinalizedToolCall | PreparedToolCall | AwaitingApprovalToolCall;

class ToolBatch {
  private readonly emits: BatchEmits;
  private readonly syncSteps: boolean;

  constructor(private readonly input: ToolBatchInput) {
    this.emits = batchEmits(input.effects, input.config.awaitEveryEmit ?? false);
    this.syncSteps = input.config.syncToolSteps ?? true;
  }

  /** Preflight by the batch's timing: a promise each step, or only when a step makes one. */
  private preflight(toolCall: ToolCall): MaybePromise<CallSlot> {
    return this.syncSteps ? this.prepareNow(toolCall) : this.prepare(toolCall);
  }

  /** A prepared call as it is, one that waits for approval once decided (R22). */
  private decide(slot: CallSlot): MaybePromise<FinalizedToolCall | PreparedToolCall> {
    if (!this.syncSteps) return this.decided(slot);
    if ('result' in slot || slot.kind === 'prepared') return slot;
    return this.awaitApproval(slot.prepared, slot.request);
  }

  private get effects(): ToolBatchEffects {
    return this.input.effects;
  }

  /** R14: preflight, execute, finalize and publish each call before the next one starts. */
  async runSequential(): Promise<PublishedBatch> {
    const finalizedCalls: FinalizedToolCall[] = [];
    const messages: ToolResultMessage[] = [];
    for (const toolCall of this.input.toolCalls) {
      const started = this.emits.start(toolCall);
      if (started !== undefined) await started;
      const preflighted = this.preflight(toolCall);
      const slot = isPromiseLike(preflighted) ? await preflighted : preflighted;
      const decided = this.decide(slot);
      const outcome = isPromiseLike(decided) ? await decided : decided;
      const finalized = 'result' in outcome ? outcome : await this.run(outcome);
      const ended = this.emits.end(finalized);
      if (ended !== undefined) await ended;
      const published = this.emits.publish(finalized);
      messages.push(isPromiseLike(published) ? await published : published);
      finalizedCalls.push(finalized);
    }
    return { finalized: finalizedCalls, messages };
  }

  /**
   * R15: preflight call by call in source order (immediate errors end at once), then every
   * prepared body runs concurrently; end events follow real completion order. A call waiting
   * for approval (R22) waits beside the running bodies: the others do not wait for its decision.
   */
  async runParallel(): Promise<PublishedBatch> {
    const slots: CallSlot[] = [];
    for (const toolCall of this.input.toolCalls) {
      const started = this.emits.start(toolCall);
      if (started !== undefined) await started;
      const preflighted = this.preflight(toolCall);
      const outcome = isPromiseLike(preflighted) ? await preflighted : preflighted;
      if ('result' in outcome) {
        const ended = this.emits.end(outcome);
        if (ended !== undefined) await ended;
      }
      slots.push(outcome);
    }
    const finalizedCalls = await Promise.all(
      slots.map(async (slot) => {
        if ('result' in slot) return slot;
        const decided = this.decide(slot);
        const outcome = isPromiseLike(decided) ? await decided : decided;
        let finalized: FinalizedToolCall;
        if ('result' in outcome) finalized = outcome;
        // R19: an abort after this call was prepared (or approved) but before its body started.
        else if (this.effects.isAborted()) finalized = failed(outcome.toolCall, OPERATION_ABORTED);
        else finalized = await this.run(outcome);
        const ended = this.emits.end(finalized);
        if (ended !== undefined) await ended;
        return finalized;
      }),
    );
    // Result messages in source order, once the whole batch finished.
    const messages: ToolResultMessage[] = [];
    for (const finalized of finalizedCalls) {
      const published = this.emits.publish(finalized);
      messages.push(isPromiseLike(published) ? await published : published);
    }
    return { finalized: finalizedCalls, messages };
  }

  /** What the preflight of `toolCall` is given. */
  private preflightInput(toolCall: ToolCall): PreflightInput {
    return {
      assistantMessage: this.input.assistantMessage,
      toolCall,
      tools: this.input.config.tools,
      context: this.input.context,
      beforeToolCall: this.input.config.beforeToolCall,
      isAborted: () => this.effects.isAborted(),
      signal: this.effects.signal,
    };
  }

  /** Preflight: a finalized error, a prepared call or one that waits for approval. */
  private async prepare(
    toolCall: ToolCall,
  ): Promise<FinalizedToolCall | PreparedToolCall | AwaitingApprovalToolCall> {
    // R19: once the run is aborted, no further call is prepared; each still gets its result.
    if (this.effects.isAborted()) return failed(toolCall, OPERATION_ABORTED);
    const outcome = await preflightToolCall(this.preflightInput(toolCall));
    // A host that cannot ask answers at once, like any immediate error (R15).
    if (outcome.kind === 'approval' && !this.effects.awaitApproval) {
      return this.awaitApproval(outcome.prepared, outcome.request);
    }
    return outcome;
  }

  /** {@link prepare} making a promise only when a step of the preflight makes one. */
  private prepareNow(toolCall: ToolCall): MaybePromise<CallSlot> {
    if (this.effects.isAborted()) return failed(toolCall, OPERATION_ABORTED);
    const outcome = preflightNow(this.preflightInput(toolCall));
    const settle = (settled: Awaited<typeof outcome>): MaybePromise<CallSlot> =>
      settled.kind === 'approval' && !this.effects.awaitApproval
        ? this.awaitApproval(settled.prepared, settled.request)
        : settled;
    return isPromiseLike(outcome) ? Promise.resolve(outcome).then(settle) : settle(outcome);
  }

  /** A call that waits for approval, once decided (R22); any other outcome as it is. */
  private async decided(
    outcome: FinalizedToolCall | PreparedToolCall | AwaitingApprovalToolCall,
  ): Promise<FinalizedToolCall | PreparedToolCall> {
    if ('result' in outcome || outcome.kind === 'prepared') return outcome;
    return this.awaitApproval(outcome.prepared, outcome.request);
  }

  private async awaitApproval(
    prepared: PreparedToolCall,
    request: Parameters<NonNullable<ToolBatchEffects['awaitApproval']>>[1],
  ): Promise<FinalizedToolCall | PreparedToolCall> {
    const { toolCall } = prepared;
    if (!this.effects.awaitApproval) {
      return failed(
        toolCall,
        `Tool ${toolCall.name} needs approval, which this run cannot ask for`,
      );
    }
    try {
      const decision = await this.effects.awaitApproval(prepared, request);
      if (this.effects.isAborted()) return failed(toolCall, OPERATION_ABORTED);
      if (!decision.approved) {
        return failed(
          toolCall,
          decision.reason || `Tool ${toolCall.name} was denied by a reviewer`,
        );
      }
      return prepared;
    } catch (error) {
      if (this.effects.isAborted()) return failed(toolCall, OPERATION_ABORTED);
      return failed(toolCall, messageOf(error));
    }
  }

  /** Runs a prepared body, then `afterToolCall` (R16, R17). */
  private async run(prepared: PreparedToolCall): Promise<FinalizedToolCall> {
    const { toolCall } = prepared;
    // As in Pi: an update is emitted only while the body runs, and every update's event is
    // emitted before the call goes on to its end event.
    const updates: Promise<void>[] = [];
    let acceptingUpdates = true;
    const onUpdate = (partialResult: unknown): void => {
      if (!acceptingUpdates) return;
      let emitted: Promise<void>;
      try {
        emitted = Promise.resolve(
          this.effects.emit({
            type: 'tool_execution_update',
            toolCallId: toolCall.id,
            toolName: toolCall.name,
            args: toolCall.arguments,
            partialResult,
          }),
        );
      } catch (error) {
        emitted = Promise.reject(error instanceof Error ? error : new Error(messageOf(error)));
      }
      // Awaited below; this only keeps a failing emit from being an unhandled rejection meanwhile.
      emitted.catch(() => undefined);
      updates.push(emitted);
    };
    let finalized: FinalizedToolCall;
    try {
      const result = await this.effects.executeTool(prepared, onUpdate);
      finalized = { toolCall, result, isError: false };
    } catch (error) {
      finalized = failed(toolCall, messageOf(error));
    } finally {
      acceptingUpdates = false;
    }
    if (!this.syncSteps || updates.length > 0) await Promise.all(updates);
    // R21: a body stopped by the abort reports the abort, whatever its own error said.
    if (finalized.isError && this.effects.isAborted()) return failed(toolCall, OPERATION_ABORTED);
    if (this.syncSteps && !this.input.config.afterToolCall) return finalized;
    return this.applyAfterToolCall(prepared, finalized);
  }

  private async applyAfterToolCall(
    prepared: PreparedToolCall,
    finalized: FinalizedToolCall,
  ): Promise<FinalizedToolCall> {
    const hook = this.input.config.afterToolCall;
    if (!hook) return finalized;
    try {
      const override = await hook(
        {
          assistantMessage: this.input.assistantMessage,
          toolCall: prepared.toolCall,
          args: prepared.args,
          result: finalized.result,
          isError: finalized.isError,
          context: this.input.context,
        },
        this.effects.signal,
      );
      if (!override) return finalized;
      // Field by field, no deep merge; null or undefined keeps the tool's value (as in Pi).
      const result = { ...finalized.result };
      if (override.content != null) result.content = override.content;
      if (override.details != null) result.details = override.details;
      if (override.usage != null) result.usage = override.usage;
      if (override.terminate != null) result.terminate = override.terminate;
      return {
        toolCall: prepared.toolCall,
        result,
        isError: override.isError ?? finalized.isError,
      };
    } catch (error) {
      const text = isFrozenWriteError(error)
        ? argumentsChangedInPlaceText('afterToolCall', error)
        : messageOf(error);
      return failed(prepared.toolCall, text);
    }
  }
}
