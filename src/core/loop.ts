import { answerTruncatedToolCalls, executeToolBatch, type ToolBatchOutcome } from './batch.js';
import type { AgentLoopEffects } from './effects.js';
import type { AgentHooks, RunContext } from './hooks.js';
import {
  emptyUsage,
  toolCallsOf,
  type AssistantMessage,
  type Message,
  type ToolResultMessage,
} from './messages.js';
import { indexTools } from './preflight.js';
import { describeTool, type ToolExecutionMode, type ToolSpec } from './tool-spec.js';
import { OPERATION_ABORTED } from './tool-results.js';

export interface AgentLoopConfig extends AgentHooks {
  systemPrompt: string;
  tools: readonly ToolSpec[];
  /** Default `parallel` (R13). */
  toolExecution?: ToolExecutionMode;
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
  const tools = indexTools(config.tools);
  const descriptors = config.tools.map(describeTool);
  const context: RunContext = {
    systemPrompt: config.systemPrompt,
    messages: transcript.messages,
    tools: config.tools,
  };
  const newMessages: Message[] = [];
  let lastStopReason: AssistantMessage['stopReason'] | undefined;

  const append = async (message: Message): Promise<void> => {
    await effects.emit({ type: 'message_start', message });
    await effects.emit({ type: 'message_end', message });
    transcript.messages.push(message);
    newMessages.push(message);
  };

  let pending: Message[];
  let firstTurn: boolean;
  if (options.resume) {
    pending = [...prompts, ...(await effects.takeSteeringMessages())];
    firstTurn = false;
  } else {
    await effects.emit({ type: 'agent_start' });
    await effects.emit({ type: 'turn_start' });
    for (const prompt of prompts) await append(prompt);
    pending = await effects.takeSteeringMessages();
    firstTurn = true;
  }

  run: for (;;) {
    let hasMoreToolCalls = true;
    while (hasMoreToolCalls || pending.length > 0) {
      if (!firstTurn && !effects.isAborted() && options.shouldPause?.()) {
        return { newMessages, stopReason: lastStopReason, paused: { pending } };
      }
      if (!firstTurn && !effects.isAborted() && options.shouldStopBeforeTurn?.()) {
        await effects.emit({ type: 'agent_end', messages: newMessages });
        return { newMessages, stopReason: lastStopReason, stoppedBeforeTurn: { pending } };
      }
      if (!firstTurn) await effects.emit({ type: 'turn_start' });
      firstTurn = false;

      // R20: steering (or follow-up) messages go in before the next model call.
      for (const message of pending) await append(message);

      const message = effects.isAborted()
        ? abortedAssistantMessage(effects.now())
        : await effects.callModel({
            systemPrompt: config.systemPrompt,
            messages: [...transcript.messages],
            tools: descriptors,
          });
      await append(message);
      lastStopReason = message.stopReason;

      // R2
      if (message.stopReason === 'error' || message.stopReason === 'aborted') {
        await effects.emit({ type: 'turn_end', message, toolResults: [] });
        break run;
      }

      const toolCalls = toolCallsOf(message);
      let toolResults: ToolResultMessage[] = [];
      hasMoreToolCalls = false;
      if (toolCalls.length > 0) {
        const batch: ToolBatchOutcome =
          message.stopReason === 'length'
            ? await answerTruncatedToolCalls(toolCalls, effects)
            : await executeToolBatch({
                assistantMessage: message,
                toolCalls,
                config: {
                  tools,
                  toolExecution: config.toolExecution ?? 'parallel',
                  beforeToolCall: config.beforeToolCall,
                  afterToolCall: config.afterToolCall,
                },
                context,
                effects,
              });
        toolResults = batch.messages;
        for (const result of toolResults) {
          transcript.messages.push(result);
          newMessages.push(result);
        }
        hasMoreToolCalls = !batch.terminate;
      }

      await effects.emit({ type: 'turn_end', message, toolResults });
      // R21: an aborted run starts no new turn.
      if (effects.isAborted()) break run;
      if (
        config.shouldStopAfterTurn &&
        (await config.shouldStopAfterTurn({ message, toolResults, context }))
      ) {
        break run;
      }
      pending = await effects.takeSteeringMessages();
    }

    const followUps = await effects.takeFollowUpMessages();
    if (followUps.length === 0) break;
    pending = followUps;
  }

  await effects.emit({ type: 'agent_end', messages: newMessages });
  return { newMessages, stopReason: lastStopReason };
}
