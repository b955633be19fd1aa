import type { Message, ModelRequest } from '../core/index.js';
import { textOf } from '../core/messages.js';

/** Characters of one tool result kept in the text the summariser reads. */
const TOOL_RESULT_CHARACTERS = 2000;

const SYSTEM_PROMPT =
  'You write context summaries. You read a conversation between a user and an AI agent that ' +
  'works with tools, and you write a summary that lets another agent carry on the work without ' +
  'the conversation. Do not continue the conversation or answer what it asks: write only the ' +
  'summary.';

const SECTIONS = `Write it in these sections:

## Goal
What the user asked for (several items if the work covers several tasks).

## Constraints
What the user required or preferred, or "(none)".

## Progress
Done, in progress, and blocked work.

## Decisions
Each decision taken and why, briefly.

## Next steps
What should happen next, in order.

## Details to keep
File paths, function names, commands, error messages and values the next agent needs, exactly as written.`;

const FIRST_INSTRUCTIONS = `The conversation above is the older part of an agent's work. Summarise it.

${SECTIONS}`;

const UPDATE_INSTRUCTIONS = `The conversation above continues the work described in the earlier summary (in <earlier-summary>). Write one summary of both: keep what the earlier summary says unless the conversation changed it, add what is new, move finished work to done.

${SECTIONS}`;

/** Opening of the user message that stands for the summarised messages in the model's context. */
export const SUMMARY_MESSAGE_OPENING =
  'The earlier part of this conversation was summarised to fit the context window:';

function cut(text: string, characters: number): string {
  if (text.length <= characters) return text;
  return `${text.slice(0, characters)}\n[... ${text.length - characters} more characters]`;
}

/** One message as a line of text for the summariser (so that it does not answer it instead). */
function messageText(message: Message): string | undefined {
  switch (message.role) {
    case 'user': {
      const text = textOf(message);
      return text === '' ? undefined : `[User]: ${text}`;
    }
    case 'assistant': {
      const parts: string[] = [];
      const text = textOf(message);
      if (text !== '') parts.push(`[Agent]: ${text}`);
      const calls = message.content.flatMap((block) =>
        block.type === 'toolCall'
          ? [`${block.name}(${JSON.stringify(block.arguments) ?? ''})`]
          : [],
      );
      if (calls.length > 0) parts.push(`[Agent calls tools]: ${calls.join('; ')}`);
      if (message.stopReason === 'error' && message.errorMessage) {
        parts.push(`[Model error]: ${message.errorMessage}`);
      }
      return parts.length === 0 ? undefined : parts.join('\n');
    }
    case 'toolResult': {
      const text = cut(textOf(message), TOOL_RESULT_CHARACTERS);
      return `[Tool result${message.isError ? ', error' : ''}]: ${text}`;
    }
  }
}

/**
 * The conversation as plain text, newest part kept when it is longer than `maximumCharacters`
 * (the summariser's own context is bounded too).
 */
export function conversationText(messages: readonly Message[], maximumCharacters: number): string {
  const text = messages.flatMap((message) => messageText(message) ?? []).join('\n\n');
  if (text.length <= maximumCharacters) return text;
  const dropped = text.length - maximumCharacters;
  return `[... ${dropped} earlier characters left out]\n${text.slice(dropped)}`;
}

/**
 * The model request that summarises `messages` (and the earlier summary they continue, if any):
 * one user message holding the conversation as text, no tools.
 */
export function summaryRequest(
  messages: readonly Message[],
  earlierSummary: string | undefined,
  maximumCharacters: number,
  timestamp: number,
): ModelRequest {
  let prompt = `<conversation>\n${conversationText(messages, maximumCharacters)}\n</conversation>\n\n`;
  if (earlierSummary !== undefined) {
    prompt += `<earlier-summary>\n${earlierSummary}\n</earlier-summary>\n\n`;
  }
  prompt += earlierSummary === undefined ? FIRST_INSTRUCTIONS : UPDATE_INSTRUCTIONS;
  return {
    systemPrompt: SYSTEM_PROMPT,
    messages: [{ role: 'user', content: prompt, timestamp }],
    tools: [],
  };
}

/** The user message that replaces the summarised messages in the model's context. */
export function summaryMessage(summary: string, timestamp: number): Message {
  return {
    role: 'user',
    content: `${SUMMARY_MESSAGE_OPENING}\n\n<summary>\n${summary}\n</summary>`,
    timestamp,
  };
}

/** The summary text inside a summary message (for the next compaction to build on). */
export function summaryOf(message: Message): string {
  const text = textOf(message);
  const start = text.indexOf('<summary>\n');
  const end = text.lastIndexOf('\n</summary>');
  return start < 0 || end < start ? text : text.slice(start + '<summary>\n'.length, end);
}
