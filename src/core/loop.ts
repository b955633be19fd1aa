import { answerTruncatedToolCalls, executeToolBatch, type ToolBatchOutcome } from './batch.js';
import type { AgentLoopEffects, ModelRequest } from './effects.js';
import type {
  AgentHooks,
  NextTurnUpdate,
  RunContext,
  ShouldStopAfterTurnContext,
  ThinkingLevel,
} from './hooks.js';
import {
  emptyUsage,
  toolCallsOf,
  type AssistantMessage,
  type Message,
  type ToolResultMessage,
} from './messages.js';
import { andThen, emitEvent, emitMessage, type MaybePromise } from './emit-steps.js';
import type { AgentEvent } from './events.js';
import { indexTools } from './preflight.js';
import { DEFAULT_QUEUE_MODE, type QueueMode } from './queue.js';
import {
  describeTool,
  type ToolDescriptor,
  type ToolExecutionMode,
  type ToolSpec,
} from './tool-spec.js';
import { OPERATION_ABORTED } from './tool-results.js';

export interface AgentLoopConfig extends AgentHooks {
  systemPrompt: string;
  tools: readonly ToolSpec[];
  /** Default `parallel` (R13). */
  toolExecution?: ToolExecutionMode;
  /**
   * How many queued steering messages go in before each model call (R20). Default
   * `one-at-a-time`, as in Pi; `all` injects every queued one at once.
   */
  steeringMode?: QueueMode;
  /** How many queued follow-up messages start the next turn. Default `one-at-a-time`, as in Pi. */
  followUpMode?: QueueMode;
  /** Passed in `ModelRequest.model` until `prepareNextTurn` changes it; unset: the host decides. */
  model?: string;
  /** Passed in `ModelRequest.thinkingLevel` until `prepareNextTurn` changes it. */
  thinkingLevel?: ThinkingLevel;
}

/**
 * The transcript a run works on. The loop appends to `messages` as it goes, so that a host
 * (a workflow answering queries, say) always sees the current transcript.
 */
export interface AgentTranscript {
  messages: Message[];
}

export interface AgentRunOutcome {
  /** The messages this run added, prompts included, in order. */
  newMessages: Message[];
  /** The stop reason of the last assistant message, if any. */
  stopReason: AssistantMessage['stopReason'] | undefined;
  /**
   * Set when the run paused at a turn boundary because `shouldPause` asked it to: no
   * `agent_end` was emitted, and these messages (steering or follow-up) were read but not yet
   * injected. Resume with `runAgentLoop(pending, transcript, config, effects, { resume: true })`.
   */
  paused?: { pending: Message[] };
  /**
   * Set when the run ended before a turn because `shouldStopBeforeTurn` asked it to: `agent_end`
   * was emitted, and these messages (steering, follow-up or resumed ones) were read but never
   * injected; a host that goes on later may queue them again.
   */
  stoppedBeforeTurn?: { pending: Message[] };
}

export interface AgentLoopOptions {
  /**
   * Continue a paused run: no `agent_start`, and `prompts` are injected at the start of the
   * next turn, like steering messages.
   */
  resume?: boolean;
  /**
   * Do not read the steering queue before the first model call (Pi's `continue()` from a queued
   * steering message): the prompts (or, on resume, the carried messages) are that turn's only
   * new messages. A host delivering one message at a time sets it when the prompts came from a
   * queue.
   */
  skipInitialSteeringPoll?: boolean;
  /** Asked before each new turn; true pauses the run there (for continue-as-new). */
  shouldPause?: () => boolean;
  /**
   * Asked at the same boundary as `shouldPause`: only when another turn (and so another model
   * call) would start, after the previous turn's `turn_end`, so never while a tool body runs.
   * True ends the run there: no `turn_start`, no model call, `agent_end` follows. A host uses it
   * to refuse a model call it must not make (a spent budget, say).
   *
   * Contract: deterministic, like `beforeToolCall`; must not throw.
   */
  shouldStopBeforeTurn?: () => boolean;
  /**
   * Await every `emit`, even one that returned nothing (one microtask each), as the loop did
   * before the `dar-features-2026-12c` release. A workflow replaying a run recorded then sets it:
   * the order in which that run's promises settled is part of its history. Default false: an
   * emit that returned nothing is not awaited, which spares a workflow (where the SDK captures
   * a stack for every promise) about half the promises of a turn.
   */
  awaitEveryEmit?: boolean;
  /**
   * Take a tool call's steps (preflight, approval, after-hook) without a promise each when none
   * of them returns one: a workflow, whose shims and policy gate are synchronous, makes about
   * half the promises per call. Default true; the same outcomes in the same order either way. A
   * workflow replaying a run recorded before the `dar-features-2026-12d` release sets it false.
   */
  syncToolSteps?: boolean;
}

function abortedAssistantMessage(timestamp: number): AssistantMessage {
  return {
    role: 'assistant',
    content: [],
    usage: emptyUsage(),
    stopReason: 'aborted',
    errorMessage: OPERATION_ABORTED,
    timestamp,
  };
}

/**
 * What the next model call is built from. `prepareNextTurn` may replace the context, the model
 * and the thinking level between turns.
 */
class TurnSetup {
  context: RunContext & { messages: Message[] };
  tools: ReadonlyMap<string, ToolSpec>;
  descriptors: ToolDescriptor[];
  model: string | undefined;
  thinkingLevel: ThinkingLevel | undefined;

  constructor(
    private readonly transcript: AgentTranscript,
    config: AgentLoopConfig,
  ) {
    // The transcript itself until a context is swapped in: appends are seen by the host.
    this.context = {
      systemPrompt: config.systemPrompt,
      messages: transcript.messages,
      tools: config.tools,
    };
    this.tools = indexTools(config.tools);
    this.descriptors = config.tools.map(describeTool);
    this.model = config.model;
    this.thinkingLevel = config.thinkingLevel;
  }

  /** Appends to the transcript, and to a swapped-in context as well. */
  append(message: Message): void {
    this.transcript.messages.push(message);
    if (this.context.messages !== this.transcript.messages) this.context.messages.push(message);
  }

  apply(update: NextTurnUpdate): void {
    if (update.context) {
      const { systemPrompt, messages, tools } = update.context;
      this.context = { systemPrompt, messages: [...messages], tools };
      this.tools = indexTools(tools);
      this.descriptors = tools.map(describeTool);
    }
    if (update.model !== undefined) this.model = update.model;
    if (update.thinkingLevel !== undefined) this.thinkingLevel = update.thinkingLevel;
  }

  /** The request of the next model call, through `transformContext` and `convertToLlm`. */
  async request(config: AgentLoopConfig, signal: AbortSignal | undefined): Promise<ModelRequest> {
    let messages = [...this.context.messages];
    if (config.transformContext) messages = await config.transformContext(messages, signal);
    if (config.convertToLlm) messages = await config.convertToLlm(messages);
    return {
      systemPrompt: this.context.systemPrompt,
      messages,
      tools: this.descriptors,
      ...(this.model === undefined ? {} : { model: this.model }),
      ...(this.thinkingLevel === undefined ? {} : { thinkingLevel: this.thinkingLevel }),
    };
  }
}

/**
 * The turn loop (R1-R4, R18, R20): model call, tool batch, steering, follow-up, until the
 * agent stops, fails or is aborted. Every effect is injected, so the same loop runs in-process
 * and inside a Temporal workflow.
 */
export async function runAgentLoop(
  prompts: Message[],
  transcript: AgentTranscript,
  config: AgentLoopConfig,
  effects: AgentLoopEffects,
  options: AgentLoopOptions = {},
): Promise<AgentRunOutcome> {
  const setup = new TurnSetup(transcript, config);
  const steeringMode = config.steeringMode ?? DEFAULT_QUEUE_MODE;
  const followUpMode = config.followUpMode ?? DEFAULT_QUEUE_MODE;
  const takeSteering = async () => effects.takeSteeringMessages(steeringMode);
  const newMessages: Message[] = [];
  let lastStopReason: AssistantMessage['stopReason'] | undefined;

  const awaitEveryEmit = options.awaitEveryEmit ?? false;
  const emit = (event: AgentEvent): MaybePromise<void> => emitEvent(effects, event, awaitEveryEmit);
  const record = (message: Message): void => {
    setup.append(message);
    newMessages.push(message);
  };
  const append = awaitEveryEmit
    ? async (message: Message): Promise<void> => {
        await effects.emit({ type: 'message_start', message });
        await effects.emit({ type: 'message_end', message });
        record(message);
      }
    : (message: Message): MaybePromise<void> =>
        andThen(emitMessage(effects, message), () => record(message));

  let pending: Message[];
  let firstTurn: boolean;
  if (options.resume) {
    pending = [...prompts, ...(options.skipInitialSteeringPoll ? [] : await takeSteering())];
    firstTurn = false;
  } else {
    let emitted = emit({ type: 'agent_start' });
    if (emitted !== undefined) await emitted;
    emitted = emit({ type: 'turn_start' });
    if (emitted !== undefined) await emitted;
    for (const prompt of prompts) {
      const appended = append(prompt);
      if (appended !== undefined) await appended;
    }
    pending = options.skipInitialSteeringPoll ? [] : await takeSteering();
    firstTurn = true;
  }

  run: for (;;) {
    let hasMoreToolCalls = true;
    while (hasMoreToolCalls || pending.length > 0) {
      if (!firstTurn && !effects.isAborted() && options.shouldPause?.()) {
        return { newMessages, stopReason: lastStopReason, paused: { pending } };
      }
      if (!firstTurn && !effects.isAborted() && options.shouldStopBeforeTurn?.()) {
        const emitted = emit({ type: 'agent_end', messages: newMessages });
        if (emitted !== undefined) await emitted;
        return { newMessages, stopReason: lastStopReason, stoppedBeforeTurn: { pending } };
      }
      if (!firstTurn) {
        const emitted = emit({ type: 'turn_start' });
        if (emitted !== undefined) await emitted;
      }
      firstTurn = false;

      // R20: steering (or follow-up) messages go in before the next model call.
      for (const message of pending) {
        const appended = append(message);
        if (appended !== undefined) await appended;
      }

      const message = effects.isAborted()
        ? abortedAssistantMessage(effects.now())
        : await effects.callModel(await setup.request(config, effects.signal));
      const appended = append(message);
      if (appended !== undefined) await appended;
      lastStopReason = message.stopReason;

      // R2
      if (message.stopReason === 'error' || message.stopReason === 'aborted') {
        const emitted = emit({ type: 'turn_end', message, toolResults: [] });
        if (emitted !== undefined) await emitted;
        break run;
      }

      const toolCalls = toolCallsOf(message);
      let toolResults: ToolResultMessage[] = [];
      hasMoreToolCalls = false;
      if (toolCalls.length > 0) {
        const batch: ToolBatchOutcome =
          message.stopReason === 'length'
            ? await answerTruncatedToolCalls(toolCalls, effects, awaitEveryEmit)
            : await executeToolBatch({
                assistantMessage: message,
                toolCalls,
                config: {
                  tools: setup.tools,
                  toolExecution: config.toolExecution ?? 'parallel',
                  beforeToolCall: config.beforeToolCall,
                  afterToolCall: config.afterToolCall,
                  awaitEveryEmit,
                  syncToolSteps: options.syncToolSteps ?? true,
                },
                context: setup.context,
                effects,
              });
        toolResults = batch.messages;
        for (const result of toolResults) {
          setup.append(result);
          newMessages.push(result);
        }
        hasMoreToolCalls = !batch.terminate;
      }

      const emitted = emit({ type: 'turn_end', message, toolResults });
      if (emitted !== undefined) await emitted;
      // R21: an aborted run starts no new turn.
      if (effects.isAborted()) break run;
      const turnContext = (): ShouldStopAfterTurnContext => ({
        message,
        toolResults,
        context: setup.context,
        newMessages,
      });
      const update = await config.prepareNextTurn?.(turnContext(), effects.signal);
      if (update) setup.apply(update);
      if (
        config.shouldStopAfterTurn &&
        (await config.shouldStopAfterTurn(turnContext(), effects.signal))
      ) {
        break run;
      }
      pending = await takeSteering();
    }

    const followUps = await effects.takeFollowUpMessages(followUpMode);
    if (followUps.length === 0) break;
    pending = followUps;
  }

  const emitted = emit({ type: 'agent_end', messages: newMessages });
  if (emitted !== undefined) await emitted;
  return { newMessages, stopReason: lastStopReason };
}
