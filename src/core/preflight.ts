import { argumentsChangedInPlaceText, isFrozenWriteError } from './frozen-arguments.js';
import type { ApprovalRequest, BeforeToolCallHook, HookSignal, RunContext } from './hooks.js';
import { isHostFailure } from './host-failure.js';
import { deepFreeze } from './json-values.js';
import { quoteBounded } from './limits.js';
import type { AssistantMessage, ToolCall } from './messages.js';
import { toolCallSizeError } from './tool-call-size.js';
import type { ToolExecutionResult, ToolSpec } from './tool-spec.js';
import { BLOCKED_BY_POLICY, OPERATION_ABORTED, errorResult, messageOf } from './tool-results.js';
import { validateArguments } from './validation.js';
import { isPromiseLike, type MaybePromise } from './emit-steps.js';

/** A call that passed every gate: only these reach a tool body (R12). */
export interface PreparedToolCall {
  kind: 'prepared';
  toolCall: ToolCall;
  tool: ToolSpec;
  /** Validated, coerced and frozen; plain JSON. */
  args: unknown;
}

/** A call answered without running its body: unknown tool, bad arguments, block, abort. */
export interface ImmediateToolCall {
  kind: 'immediate';
  toolCall: ToolCall;
  result: ToolExecutionResult;
  isError: true;
}

/** The policy asked a human; the host waits for the decision, then calls `decide`. */
export interface AwaitingApprovalToolCall {
  kind: 'approval';
  toolCall: ToolCall;
  request: ApprovalRequest;
  prepared: PreparedToolCall;
}

export type PreflightOutcome = PreparedToolCall | ImmediateToolCall | AwaitingApprovalToolCall;

export interface PreflightInput {
  assistantMessage: AssistantMessage;
  toolCall: ToolCall;
  /** Tools by exact name. A Map: a model-sent `__proto__` or `constructor` finds nothing. */
  tools: ReadonlyMap<string, ToolSpec>;
  context: RunContext;
  beforeToolCall?: BeforeToolCallHook | undefined;
  isAborted: () => boolean;
  /** Handed to `beforeToolCall`. */
  signal?: HookSignal;
}

function immediate(toolCall: ToolCall, text: string): ImmediateToolCall {
  return { kind: 'immediate', toolCall, result: errorResult(text), isError: true };
}

export function indexTools(tools: readonly ToolSpec[]): ReadonlyMap<string, ToolSpec> {
  return new Map(tools.map((tool) => [tool.name, tool]));
}

/**
 * R6-R12 for one call, in order; the first failure decides. Whatever the model sent, the
 * outcome is a prepared call or an error result the model can read; only a `HostFailure` (the
 * host cannot run the call's preflight here) is thrown.
 */
export async function preflightToolCall(input: PreflightInput): Promise<PreflightOutcome> {
  const { toolCall } = input;
  try {
    return await runGates(input);
  } catch (error) {
    return failedGate(toolCall, error);
  }
}

/**
 * {@link preflightToolCall} without a promise for each step: the outcome itself when neither the
 * tool's argument shim nor `beforeToolCall` returns a promise (the workflow's are synchronous),
 * else a promise of it. The same gates in the same order, with the same outcomes. Runs recorded
 * before release `2026-12d` use `preflightToolCall`: the timing of its promises is part of their
 * histories.
 */
export function preflightNow(input: PreflightInput): MaybePromise<PreflightOutcome> {
  const { toolCall } = input;
  const onError = (error: unknown) => failedGate(toolCall, error);
  try {
    const looked = lookUp(input);
    if (looked.kind !== 'found') return looked.outcome;
    const shimmed = shim(looked.tool, toolCall);
    if (!(shimmed instanceof Promise)) return afterShim(input, looked.tool, shimmed, onError);
    return (shimmed as Promise<unknown>).then(
      (shaped) => afterShim(input, looked.tool, shaped, onError),
      onError,
    );
  } catch (error) {
    return onError(error);
  }
}

/** A gate threw: a `HostFailure` goes on up, anything else is the call's error result. */
function failedGate(toolCall: ToolCall, error: unknown): ImmediateToolCall {
  if (isHostFailure(error)) throw error;
  return immediate(toolCall, messageOf(error));
}

type LookUp = { kind: 'found'; tool: ToolSpec } | { kind: 'answered'; outcome: ImmediateToolCall };

/** The size limits, then R6: the call's tool, or the error result that answers it. */
function lookUp({ toolCall, tools }: PreflightInput): LookUp {
  // Before R6: a name, id or arguments over the size limits (limits.ts) are not looked at.
  const sizeError = toolCallSizeError(toolCall);
  if (sizeError !== undefined) return { kind: 'answered', outcome: immediate(toolCall, sizeError) };
  const tool = typeof toolCall.name === 'string' ? tools.get(toolCall.name) : undefined;
  if (tool) return { kind: 'found', tool };
  const text = `Tool ${quoteBounded(String(toolCall.name))} not found`;
  return { kind: 'answered', outcome: immediate(toolCall, text) };
}

/** R7: the arguments as the tool's shim shapes them (its throw becomes the error result). */
function shim(tool: ToolSpec, toolCall: ToolCall): unknown {
  return tool.prepareArguments ? tool.prepareArguments(toolCall.arguments) : toolCall.arguments;
}

type Validated =
  { kind: 'valid'; args: unknown } | { kind: 'answered'; outcome: ImmediateToolCall };

/** R8, R9: the shaped arguments validated, coerced and frozen, unless the run was aborted. */
function validate(input: PreflightInput, tool: ToolSpec, shaped: unknown): Validated {
  const { toolCall } = input;
  const validated = validateArguments(tool.name, tool.parameters, shaped, toolCall.arguments);
  if (!validated.ok) return { kind: 'answered', outcome: immediate(toolCall, validated.message) };
  const args = deepFreeze(validated.value);
  if (input.isAborted()) {
    return { kind: 'answered', outcome: immediate(toolCall, OPERATION_ABORTED) };
  }
  return { kind: 'valid', args };
}

/** Calls `beforeToolCall` (R10); a hook that wrote to the frozen arguments is told so (R11). */
function askHook(
  input: PreflightInput,
  tool: ToolSpec,
  args: unknown,
): ReturnType<BeforeToolCallHook> {
  const { toolCall, assistantMessage, context } = input;
  return (input.beforeToolCall as BeforeToolCallHook)(
    { assistantMessage, toolCall, args, tool, context },
    input.signal,
  );
}

function hookFailure(input: PreflightInput, error: unknown): ImmediateToolCall {
  if (isFrozenWriteError(error)) {
    return immediate(input.toolCall, argumentsChangedInPlaceText('beforeToolCall', error));
  }
  throw error;
}

/** R10, R11 applied, then R12: the prepared call, one that waits for approval, or an error. */
function decide(
  input: PreflightInput,
  tool: ToolSpec,
  validArgs: unknown,
  decision: Awaited<ReturnType<BeforeToolCallHook>> | undefined,
): PreflightOutcome {
  const { toolCall } = input;
  let args = validArgs;
  let approval: ApprovalRequest | undefined;
  if (decision && 'block' in decision && decision.block) {
    const blocked = immediate(toolCall, decision.reason || BLOCKED_BY_POLICY);
    if (decision.terminate === true) blocked.result.terminate = true;
    return blocked;
  }
  if (decision && 'args' in decision) {
    const revalidated = validateArguments(tool.name, tool.parameters, decision.args);
    if (!revalidated.ok) return immediate(toolCall, revalidated.message);
    args = deepFreeze(revalidated.value);
  }
  if (decision && 'approval' in decision) approval = decision.approval;

  // R12
  if (input.isAborted()) return immediate(toolCall, OPERATION_ABORTED);

  const prepared: PreparedToolCall = { kind: 'prepared', toolCall, tool, args };
  if (approval) return { kind: 'approval', toolCall, request: approval, prepared };
  return prepared;
}

/** `preflightNow` from the shaped arguments on. */
function afterShim(
  input: PreflightInput,
  tool: ToolSpec,
  shaped: unknown,
  onError: (error: unknown) => ImmediateToolCall,
): MaybePromise<PreflightOutcome> {
  const validated = validate(input, tool, shaped);
  if (validated.kind !== 'valid') return validated.outcome;
  if (!input.beforeToolCall) return decide(input, tool, validated.args, undefined);
  const hookError = (error: unknown): ImmediateToolCall => {
    try {
      return hookFailure(input, error);
    } catch (thrown) {
      return onError(thrown);
    }
  };
  let decision: ReturnType<BeforeToolCallHook>;
  try {
    decision = askHook(input, tool, validated.args);
  } catch (error) {
    return hookError(error);
  }
  if (!isPromiseLike(decision)) return decide(input, tool, validated.args, decision);
  return Promise.resolve(decision).then(
    (settled) => decide(input, tool, validated.args, settled),
    hookError,
  );
}

async function runGates(input: PreflightInput): Promise<PreflightOutcome> {
  const looked = lookUp(input);
  if (looked.kind !== 'found') return looked.outcome;
  const { tool } = looked;

  // R7: the shim's throw is caught by the caller and becomes the error result.
  const shimmed = shim(tool, input.toolCall);
  // Awaited only when it is a promise (a worker-side shim): a synchronous shim adds no await,
  // so the preflight of bundled tools runs exactly as before.
  const shaped: unknown =
    shimmed instanceof Promise ? await (shimmed as Promise<unknown>) : shimmed;

  // R8, R9
  const validated = validate(input, tool, shaped);
  if (validated.kind !== 'valid') return validated.outcome;

  // R10, R11
  let decision: Awaited<ReturnType<BeforeToolCallHook>> | undefined;
  if (input.beforeToolCall) {
    try {
      decision = await askHook(input, tool, validated.args);
    } catch (error) {
      return hookFailure(input, error);
    }
  }
  return decide(input, tool, validated.args, decision);
}
