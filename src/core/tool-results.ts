import type { ToolCall, ToolResultMessage } from './messages.js';
import { MAXIMUM_ERROR_TEXT_LENGTH, quoteBounded } from './limits.js';
import type { ToolExecutionResult } from './tool-spec.js';

export const OPERATION_ABORTED = 'Operation aborted';
export const BLOCKED_BY_POLICY = 'Tool execution was blocked';

/** R3: the text every call of a message cut off by the output token limit receives. */
export const TRUNCATED_TOOL_CALL =
  'The output token limit cut this message off before the tool call was complete, so it was ' +
  'not run. Send the tool call again, complete, in a shorter message if needed.';

/** An error result; its text is bounded, whatever model input a hook or shim put into it. */
export function errorResult(text: string): ToolExecutionResult {
  return {
    content: [{ type: 'text', text: quoteBounded(text, MAXIMUM_ERROR_TEXT_LENGTH) }],
    details: {},
  };
}

export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

/** A call's final outcome, before it becomes a tool result message. */
export interface FinalizedToolCall {
  toolCall: ToolCall;
  result: ToolExecutionResult;
  isError: boolean;
}

export function toolResultMessage(
  finalized: FinalizedToolCall,
  timestamp: number,
): ToolResultMessage {
  return {
    role: 'toolResult',
    toolCallId: finalized.toolCall.id,
    toolName: finalized.toolCall.name,
    content: finalized.result.content,
    details: finalized.result.details,
    isError: finalized.isError,
    timestamp,
    ...(finalized.result.contentRef === undefined
      ? {}
      : { contentRef: finalized.result.contentRef }),
  };
}
