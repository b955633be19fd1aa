import type { AssistantMessage, Message, ToolCall, ToolResultMessage, Usage } from './messages.js';
import type { ToolExecutionResult, ToolSpec } from './tool-spec.js';

/**
 * The run's abort signal, as hooks receive it (Pi's second hook argument). Present when the host
 * gave one (`AgentLoopEffects.signal`); in the durable runner hooks run in workflow code, where
 * cancellation is the workflow's own and the signal may be absent. A hook that waits on
 * something (only possible in-process) should stop when it fires.
 */
export type HookSignal = AbortSignal | undefined;

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
  /**
   * The validated arguments, deeply frozen: a hook cannot change them in place (R11). One that
   * tries gets an error result telling it to return `{ args }` instead.
   */
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
  | {
      block: true;
      reason?: string;
      /** The blocked call's result asks to stop after this batch (R18), as in Pi 0.84.1. */
      terminate?: boolean;
    }
  | { args: unknown }
  | { approval: ApprovalRequest };

/**
 * The policy gate (R10, R11), called once per call after validation and the abort check.
 *
 * Contract:
 * - Runs in workflow code in the durable runner: it must be deterministic (no clock,
 *   randomness, I/O or environment) and must not keep state across calls.
 * - Return nothing to let the call through; `{ block: true, reason }` to answer it with an
 *   error result carrying `reason` (the run goes on, the model reads why; with
 *   `terminate: true` the blocked result counts toward stopping after the batch, R18); `{ args }` to
 *   replace the arguments, which are then validated again against the tool's schema;
 *   `{ approval }` to ask a human (R22).
 * - Throwing is allowed: the thrown message becomes the call's error result.
 * - `signal` is the run's abort signal, when the host has one (see {@link HookSignal}).
 */
export type BeforeToolCallHook = (
  context: BeforeToolCallContext,
  signal?: HookSignal,
) => BeforeToolCallResult | Promise<BeforeToolCallResult>;

export interface AfterToolCallContext {
  assistantMessage: AssistantMessage;
  toolCall: ToolCall;
  args: unknown;
  result: ToolExecutionResult;
  isError: boolean;
  context: RunContext;
}

/**
 * Fields set here replace the tool's own, one by one, with no deep merge (R17). A field left
 * out, `undefined` or `null` keeps the tool's value (as in Pi): `{ content: null }` keeps the
 * content rather than storing null.
 */
export interface AfterToolCallResult {
  content?: ToolExecutionResult['content'] | null;
  details?: unknown;
  isError?: boolean | null;
  /** Replaces the tool result's `usage` (what the tool's own work cost). */
  usage?: Usage | null;
  terminate?: boolean | null;
}

/**
 * Called after a prepared call's body finished (successfully or not), before its end event.
 *
 * Contract: deterministic, like `beforeToolCall`. Return nothing to keep the result, or the
 * fields to override (no deep merge). Throwing turns the result into an error result with the
 * thrown message. Not called for calls that never ran or that ended as `Operation aborted`.
 * `signal` is the run's abort signal, when the host has one.
 */
export type AfterToolCallHook = (
  context: AfterToolCallContext,
  signal?: HookSignal,
) => AfterToolCallResult | undefined | void | Promise<AfterToolCallResult | undefined | void>;

export interface ShouldStopAfterTurnContext {
  message: AssistantMessage;
  toolResults: ToolResultMessage[];
  context: RunContext;
  /** The messages this run added so far (prompts included), as `agent_end` would carry them. */
  newMessages: readonly Message[];
}

/**
 * Asked after each `turn_end` (R20) and after `prepareNextTurn`. Returning true ends the run
 * there, before steering and follow-up messages are read.
 *
 * Contract: deterministic, like `beforeToolCall`. Throwing ends the run with that error.
 */
export type ShouldStopAfterTurnHook = (
  context: ShouldStopAfterTurnContext,
  signal?: HookSignal,
) => boolean | Promise<boolean>;

/** Pi's thinking levels; `off` asks for no reasoning. */
export type ThinkingLevel = 'off' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

export type PrepareNextTurnContext = ShouldStopAfterTurnContext;

/** What `prepareNextTurn` may replace for the next model call; unset fields are kept. */
export interface NextTurnUpdate {
  /**
   * The context the next model calls see: system prompt, messages and tools (a compacted
   * history, say). The loop works on a copy of `messages` and appends the run's later messages
   * to it; the host's transcript still receives every message the run adds.
   */
  context?: RunContext;
  /** The model of the next calls (`provider:model-id`), passed in `ModelRequest.model`. */
  model?: string;
  /** The thinking level of the next calls, passed in `ModelRequest.thinkingLevel`. */
  thinkingLevel?: ThinkingLevel;
}

/**
 * Called after each `turn_end`, before `shouldStopAfterTurn` and before the loop decides
 * whether another model call starts (Pi 0.74+). Return what changes for the next turn of this
 * run, or nothing to keep everything.
 *
 * Contract: deterministic, like `beforeToolCall`. Throwing ends the run with that error. A
 * model or thinking level it sets reaches the model only if the host's `callModel` reads
 * `ModelRequest.model` / `thinkingLevel` (in-process hosts; the durable runner's jobs use the
 * model of their input).
 */
export type PrepareNextTurnHook = (
  context: PrepareNextTurnContext,
  signal?: HookSignal,
) => NextTurnUpdate | undefined | void | Promise<NextTurnUpdate | undefined | void>;

/**
 * Pi's context pipeline, applied before each model call to the messages the call would send:
 * `transformContext` first (prune, inject), then `convertToLlm` (drop or map messages the
 * model must not see). The transcript itself is not changed.
 *
 * Contract: deterministic, like `beforeToolCall`; must not throw (as in Pi, return the messages
 * unchanged rather than fail): a throw ends the run with that error. Every message here is one
 * of the transcript's roles (`user`, `assistant`, `toolResult`): unlike Pi, a transcript holds
 * no custom message types, since it crosses workflow boundaries as plain JSON.
 */
export type TransformContextHook = (
  messages: Message[],
  signal?: HookSignal,
) => Message[] | Promise<Message[]>;

/** See {@link TransformContextHook}. Unset: the messages are sent as they are. */
export type ConvertToLlmHook = (messages: Message[]) => Message[] | Promise<Message[]>;

export interface AgentHooks {
  beforeToolCall?: BeforeToolCallHook;
  afterToolCall?: AfterToolCallHook;
  shouldStopAfterTurn?: ShouldStopAfterTurnHook;
  prepareNextTurn?: PrepareNextTurnHook;
  transformContext?: TransformContextHook;
  convertToLlm?: ConvertToLlmHook;
}
