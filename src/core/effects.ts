import type { AgentEvent } from './events.js';
import type { ApprovalDecision, ApprovalRequest, ThinkingLevel } from './hooks.js';
import type { AssistantMessage, Message } from './messages.js';
import type { QueueMode } from './queue.js';
import type { PreparedToolCall } from './preflight.js';
import type { ToolDescriptor, ToolExecutionResult } from './tool-spec.js';

/** What one model call receives. Plain JSON: in the durable runner it is an activity input. */
export interface ModelRequest {
  systemPrompt: string;
  messages: Message[];
  tools: ToolDescriptor[];
  /** Set when the run's config or `prepareNextTurn` chose a model (`provider:model-id`). */
  model?: string;
  /** Set when the run's config or `prepareNextTurn` chose a thinking level. */
  thinkingLevel?: ThinkingLevel;
}

/**
 * Everything the core does to the outside world, passed in. In-process, these are plain
 * functions; in a workflow, activities, signal-fed queues and the workflow's own state.
 */
export interface ToolBatchEffects {
  /**
   * Runs one prepared call's body. Contract: resolve with the body's result, or throw on
   * failure (R16): the thrown message becomes the call's error result. `onUpdate` carries
   * partial results as `tool_execution_update` events; an update sent after the returned promise
   * settled is ignored, and every update's event is emitted before the call's end event.
   */
  executeTool(
    call: PreparedToolCall,
    onUpdate: (partialResult: unknown) => void,
  ): Promise<ToolExecutionResult>;
  /** Receives every event, in order. Awaited before the run goes on. */
  emit(event: AgentEvent): void | Promise<void>;
  /** Whether the run was aborted. Read at every check point; must not throw. */
  isAborted(): boolean;
  /**
   * The run's abort signal, handed to hooks as their last argument (Pi's hooks get it). Optional:
   * `isAborted` stays the loop's own check.
   */
  signal?: AbortSignal;
  /** Milliseconds since the epoch, for message timestamps (workflow time in a workflow). */
  now(): number;
  /**
   * Waits for a human decision on a call the policy sent for approval (R22). Without it, such
   * a call is answered with an error result saying approval is not available.
   */
  awaitApproval?(call: PreparedToolCall, request: ApprovalRequest): Promise<ApprovalDecision>;
}

export interface AgentLoopEffects extends ToolBatchEffects {
  /**
   * One model call. Contract: always resolve with an assistant message; a provider failure is
   * a message with `stopReason: "error"` and `errorMessage`, an abort one with
   * `stopReason: "aborted"`. A throw ends the run with that error.
   */
  callModel(request: ModelRequest): Promise<AssistantMessage>;
  /**
   * Takes queued steering messages (each is returned once). Contract: with `mode`
   * `one-at-a-time`, only the oldest one (the rest stay queued for the next read); with `all`,
   * every one. `drainQueue` does exactly this on an array.
   */
  takeSteeringMessages(mode: QueueMode): Message[] | Promise<Message[]>;
  /** Takes queued follow-up messages, by the same contract as `takeSteeringMessages`. */
  takeFollowUpMessages(mode: QueueMode): Message[] | Promise<Message[]>;
}
