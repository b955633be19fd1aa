import type { AgentEvent } from './events.js';
import type { ApprovalDecision, ApprovalRequest } from './hooks.js';
import type { AssistantMessage, Message } from './messages.js';
import type { PreparedToolCall } from './preflight.js';
import type { ToolDescriptor, ToolExecutionResult } from './tool-spec.js';

/** What one model call receives. Plain JSON: in the durable runner it is an activity input. */
export interface ModelRequest {
  systemPrompt: string;
  messages: Message[];
  tools: ToolDescriptor[];
}

/**
 * Everything the core does to the outside world, passed in. In-process, these are plain
 * functions; in a workflow, activities, signal-fed queues and the workflow's own state.
 */
export interface ToolBatchEffects {
  /**
   * Runs one prepared call's body. Contract: resolve with the body's result, or throw on
   * failure (R16): the thrown message becomes the call's error result. `onUpdate` carries
   * partial results as `tool_execution_update` events.
   */
  executeTool(
    call: PreparedToolCall,
    onUpdate: (partialResult: unknown) => void,
  ): Promise<ToolExecutionResult>;
  /** Receives every event, in order. Awaited before the run goes on. */
  emit(event: AgentEvent): void | Promise<void>;
  /** Whether the run was aborted. Read at every check point; must not throw. */
  isAborted(): boolean;
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
  /** Steering messages queued since the last read (each is returned once). */
  takeSteeringMessages(): Message[] | Promise<Message[]>;
  /** Follow-up messages queued since the last read (each is returned once). */
  takeFollowUpMessages(): Message[] | Promise<Message[]>;
}
