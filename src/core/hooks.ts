import type { AssistantMessage, Message, ToolCall, ToolResultMessage } from './messages.js';
import type { ToolExecutionResult, ToolSpec } from './tool-spec.js';

/** What every hook sees of the run. Treat it as read-only. */
export interface RunContext {
  systemPrompt: string;
  messages: readonly Message[];
  tools: readonly ToolSpec[];
}

export interface BeforeToolCallContext {
  assistantMessage: AssistantMessage;
  /** The call as the model sent it (raw arguments). */
  toolCall: ToolCall;
  /** The validated arguments, deeply frozen: a hook cannot change them in place (R11). */
  args: unknown;
  tool: ToolSpec;
  context: RunContext;
}

/** A request for a human decision on one call (R22). */
export interface ApprovalRequest {
  /** Shown to the reviewer. */
  reason: string;
  /** Milliseconds to wait; when it passes, `onTimeout` decides. Unset: wait without limit. */
  timeoutMs?: number;
  onTimeout?: 'approve' | 'deny';
}

export interface ApprovalDecision {
  approved: boolean;
  reason?: string;
}

export type BeforeToolCallResult =
  | undefined
  | void
  | { block: true; reason?: string }
  | { args: unknown }
  | { approval: ApprovalRequest };

/**
 * The policy gate (R10, R11), called once per call after validation and the abort check.
 *
 * Contract:
 * - Runs in workflow code in the durable runner: it must be deterministic (no clock,
 *   randomness, I/O or environment) and must not keep state across calls.
 * - Return nothing to let the call through; `{ block: true, reason }` to answer it with an
 *   error result carrying `reason` (the run goes on, the model reads why); `{ args }` to
 *   replace the arguments, which are then validated again against the tool's schema;
 *   `{ approval }` to ask a human (R22).
 * - Throwing is allowed: the thrown message becomes the call's error result.
 */
export type BeforeToolCallHook = (
  context: BeforeToolCallContext,
) => BeforeToolCallResult | Promise<BeforeToolCallResult>;

export interface AfterToolCallContext {
  assistantMessage: AssistantMessage;
  toolCall: ToolCall;
  args: unknown;
  result: ToolExecutionResult;
  isError: boolean;
  context: RunContext;
}

/** Fields set here replace the tool's own, one by one; unset fields are kept (R17). */
export interface AfterToolCallResult {
  content?: ToolExecutionResult['content'];
  details?: unknown;
  isError?: boolean;
  terminate?: boolean;
}

/**
 * Called after a prepared call's body finished (successfully or not), before its end event.
 *
 * Contract: deterministic, like `beforeToolCall`. Return nothing to keep the result, or the
 * fields to override (no deep merge). Throwing turns the result into an error result with the
 * thrown message. Not called for calls that never ran or that ended as `Operation aborted`.
 */
export type AfterToolCallHook = (
  context: AfterToolCallContext,
) => AfterToolCallResult | undefined | void | Promise<AfterToolCallResult | undefined | void>;

export interface ShouldStopAfterTurnContext {
  message: AssistantMessage;
  toolResults: ToolResultMessage[];
  context: RunContext;
}

/**
 * Asked after each `turn_end` (R20). Returning true ends the run there, before steering and
 * follow-up messages are read.
 *
 * Contract: deterministic, like `beforeToolCall`. Throwing ends the run with that error.
 */
export type ShouldStopAfterTurnHook = (
  context: ShouldStopAfterTurnContext,
) => boolean | Promise<boolean>;

export interface AgentHooks {
  beforeToolCall?: BeforeToolCallHook;
  afterToolCall?: AfterToolCallHook;
  shouldStopAfterTurn?: ShouldStopAfterTurnHook;
}
