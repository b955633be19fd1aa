import type { ToolCall, ToolResultMessage } from './messages.js';
import { MAXIMUM_ERROR_TEXT_LENGTH, quoteBounded } from './limits.js';
import type { ToolExecutionResult } from './tool-spec.js';

export const OPERATION_ABORTED = 'Operation aborted';
export const BLOCKED_BY_POLICY = 'Tool execution was blocked';

/**
 * R3: the text each call of a message cut off by the output token limit receives. Pi's words,
 * so that prompts tuned on Pi read the same; the name is bounded (it is model input).
 */
export function truncatedToolCallText(toolName: string): string {
  return (
    `Tool call "${quoteBounded(String(toolName))}" was not executed: the response hit the ` +
    'output token limit, so its arguments may be truncated. Re-issue the tool call with ' +
    'complete arguments.'
  );
}

/** An error result; its text is bounded, whatever model input a hook or shim put into it. */
export function errorResult(text: string): ToolExecutionResult {
  return {
    content: [{ type: 'text', text: quoteBounded(text, MAXIMUM_ERROR_TEXT_LENGTH) }],
    details: {},
  };
}

/**
 * The text of anything thrown, the same in-process and in the durable runner (whose tool
 * activities use it too): an Error's message; a string as it is; an object with a string
 * `message` (an Error from another realm, say) that message; anything else as JSON, or
 * `String()` when JSON cannot carry it. Pi writes `String(error)`, which makes an object
 * `[object Object]`: JSON tells the model more.
 */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && error !== null) {
    const message = (error as { message?: unknown }).message;
    if (typeof message === 'string') return message;
  }
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
  const { result } = finalized;
  return {
    role: 'toolResult',
    toolCallId: finalized.toolCall.id,
    toolName: finalized.toolCall.name,
    // A tool written in plain JavaScript may return no content: null never enters the
    // transcript (the next model request would break on it).
    content: Array.isArray(result.content) ? result.content : [],
    details: result.details,
    isError: finalized.isError,
    ...(result.usage == null ? {} : { usage: result.usage }),
    timestamp,
    ...(result.contentRef === undefined ? {} : { contentRef: result.contentRef }),
  };
}
