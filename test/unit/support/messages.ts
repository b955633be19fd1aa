import {
  emptyUsage,
  type AssistantContent,
  type AssistantMessage,
  type StopReason,
  type TextContent,
  type ToolCall,
  type UserMessage,
} from '../../../src/core/index.js';

export function toolCall(id: string, name: string, args: unknown): ToolCall {
  return { type: 'toolCall', id, name, arguments: args };
}

export function text(value: string): TextContent {
  return { type: 'text', text: value };
}

export function user(value: string): UserMessage {
  return { role: 'user', content: value, timestamp: 1 };
}

export function assistant(
  content: AssistantContent[],
  stopReason: StopReason = content.some((block) => block.type === 'toolCall') ? 'toolUse' : 'stop',
  errorMessage?: string,
): AssistantMessage {
  return {
    role: 'assistant',
    content,
    usage: emptyUsage(),
    stopReason,
    ...(errorMessage === undefined ? {} : { errorMessage }),
    timestamp: 1,
  };
}
