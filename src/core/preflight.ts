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
    if (isHostFailure(error)) throw error;
    return immediate(toolCall, messageOf(error));
  }
}

async function runGates(input: PreflightInput): Promise<PreflightOutcome> {
  const { toolCall, assistantMessage, context } = input;
  // Before R6: a name, id or arguments over the size limits (limits.ts) are not looked at.
  const sizeError = toolCallSizeError(toolCall);
  if (sizeError !== undefined) return immediate(toolCall, sizeError);

  // R6
  const tool = typeof toolCall.name === 'string' ? input.tools.get(toolCall.name) : undefined;
  if (!tool) return immediate(toolCall, `Tool ${quoteBounded(String(toolCall.name))} not found`);

  // R7: the shim's throw is caught by the caller and becomes the error result.
  const shimmed: unknown = tool.prepareArguments
    ? tool.prepareArguments(toolCall.arguments)
    : toolCall.arguments;
  // Awaited only when it is a promise (a worker-side shim): a synchronous shim adds no await,
  // so the preflight of bundled tools runs exactly as before.
  const shaped: unknown =
    shimmed instanceof Promise ? await (shimmed as Promise<unknown>) : shimmed;

  // R8
  const validated = validateArguments(tool.name, tool.parameters, shaped, toolCall.arguments);
  if (!validated.ok) return immediate(toolCall, validated.message);
  let args = deepFreeze(validated.value);

  // R9
  if (input.isAborted()) return immediate(toolCall, OPERATION_ABORTED);

  // R10, R11
  let approval: ApprovalRequest | undefined;
  if (input.beforeToolCall) {
    let decision: Awaited<ReturnType<BeforeToolCallHook>>;
    try {
      decision = await input.beforeToolCall(
        { assistantMessage, toolCall, args, tool, context },
        input.signal,
      );
    } catch (error) {
      // R11: a hook that wrote to the frozen arguments is told what to do instead.
      if (isFrozenWriteError(error)) {
        return immediate(toolCall, argumentsChangedInPlaceText('beforeToolCall', error));
      }
      throw error;
    }
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
  }

  // R12
  if (input.isAborted()) return immediate(toolCall, OPERATION_ABORTED);

  const prepared: PreparedToolCall = { kind: 'prepared', toolCall, tool, args };
  if (approval) return { kind: 'approval', toolCall, request: approval, prepared };
  return prepared;
}
