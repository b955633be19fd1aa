import type { Message, ToolResultMessage } from '../../../src/core/index.js';

/** The tool results of a transcript, in order. */
export function toolResults(messages: Message[]): ToolResultMessage[] {
  return messages.filter((message): message is ToolResultMessage => message.role === 'toolResult');
}

/** A tool result's text blocks, joined. */
export function resultText(message: ToolResultMessage | undefined): string {
  return (message?.content ?? [])
    .map((block) => (block.type === 'text' ? block.text : ''))
    .join('');
}
