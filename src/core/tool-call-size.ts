import {
  MAXIMUM_ARGUMENTS_LENGTH,
  MAXIMUM_TOOL_CALLS_PER_ANSWER,
  MAXIMUM_TOOL_CALL_ID_LENGTH,
  MAXIMUM_TOOL_NAME_LENGTH,
  jsonLength,
  quoteBounded,
} from './limits.js';
import type { OversizedToolCall, ToolCall } from './messages.js';

/**
 * The sizes of a call's parts that are over their limits: the ones the model activity recorded
 * when it bounded the call, else measured here (a host that calls the core directly, without
 * the activity, still gets the check). Undefined when the call is within every limit.
 */
export function oversizedPartsOf(toolCall: ToolCall): OversizedToolCall | undefined {
  if (toolCall.oversized) return toolCall.oversized;
  const parts: OversizedToolCall = {};
  if (typeof toolCall.name === 'string' && toolCall.name.length > MAXIMUM_TOOL_NAME_LENGTH) {
    parts.nameLength = toolCall.name.length;
  }
  if (typeof toolCall.id === 'string' && toolCall.id.length > MAXIMUM_TOOL_CALL_ID_LENGTH) {
    parts.idLength = toolCall.id.length;
  }
  // Unmeasurable arguments (nested too deep for JSON) go on to validation, which names the depth.
  const argumentsLength = jsonLength(toolCall.arguments);
  if (Number.isFinite(argumentsLength) && argumentsLength > MAXIMUM_ARGUMENTS_LENGTH) {
    parts.argumentsLength = argumentsLength;
  }
  return Object.keys(parts).length > 0 ? parts : undefined;
}

function describeLength(length: number): string {
  // -1: the model activity could not measure it (nested too deep for JSON, say).
  return Number.isFinite(length) && length >= 0 ? `${length} characters` : 'too large to measure';
}

/**
 * The error text for a call refused for its size before lookup (R6): which part is over which
 * limit, and only a bounded prefix of the name. Undefined when the call is within the limits.
 */
export function toolCallSizeError(toolCall: ToolCall): string | undefined {
  const parts = oversizedPartsOf(toolCall);
  if (!parts) return undefined;
  const problems: string[] = [];
  if (parts.nameLength !== undefined) {
    problems.push(
      `its tool name is ${describeLength(parts.nameLength)} long (limit ${MAXIMUM_TOOL_NAME_LENGTH})`,
    );
  }
  if (parts.idLength !== undefined) {
    problems.push(
      `its call id is ${describeLength(parts.idLength)} long (limit ${MAXIMUM_TOOL_CALL_ID_LENGTH})`,
    );
  }
  if (parts.argumentsLength !== undefined) {
    problems.push(
      `its arguments are ${describeLength(parts.argumentsLength)} of JSON ` +
        `(limit ${MAXIMUM_ARGUMENTS_LENGTH})`,
    );
  }
  if (parts.position !== undefined) {
    problems.push(
      `it is call ${parts.position} of ${parts.callCount ?? 'more'} in one answer ` +
        `(limit ${MAXIMUM_TOOL_CALLS_PER_ANSWER} calls per answer)`,
    );
  }
  return (
    `Tool call to ${quoteBounded(String(toolCall.name))} was not run: ${problems.join(', ')}. ` +
    'Send it again within the limits (split large content over several calls, and many ' +
    'calls over several answers).'
  );
}
