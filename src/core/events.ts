import type { AssistantMessage, Message, ToolResultMessage } from './messages.js';
import type { ToolExecutionResult } from './tool-spec.js';

/**
 * The public event stream of a run. Type names and fields are Pi's `AgentEvent`, so that a
 * consumer written for Pi reads ours. Token deltas (`message_update`) are not produced by the
 * core: a durable run does not write them into history.
 */
export type AgentEvent =
  | { type: 'agent_start' }
  | { type: 'agent_end'; messages: Message[] }
  | { type: 'turn_start' }
  | { type: 'turn_end'; message: AssistantMessage; toolResults: ToolResultMessage[] }
  | { type: 'message_start'; message: Message }
  | { type: 'message_update'; message: Message; assistantMessageEvent: unknown }
  | { type: 'message_end'; message: Message }
  | { type: 'tool_execution_start'; toolCallId: string; toolName: string; args: unknown }
  | {
      type: 'tool_execution_update';
      toolCallId: string;
      toolName: string;
      args: unknown;
      partialResult: unknown;
    }
  | {
      type: 'tool_execution_end';
      toolCallId: string;
      toolName: string;
      result: ToolExecutionResult;
      isError: boolean;
    };

export type AgentEventType = AgentEvent['type'];
