import type { ImageContent, Message, UserMessage } from '../core/index.js';

/**
 * The text of what a program passes to `prompt`, `steer` or `followUp`: a text, a user message
 * whose content is text, or a one-message array of it. A job takes user messages as text (its
 * input's prompt, its steer and follow-up signals), so images, other roles and several messages
 * at once are refused here, with an error that says so, before anything is sent.
 */
export function promptText(input: string | Message | Message[], images?: ImageContent[]): string {
  if (images && images.length > 0) {
    throw new Error('A durable agent takes text prompts only: images cannot be sent to a job');
  }
  if (typeof input === 'string') return input;
  if (Array.isArray(input)) {
    const [only, ...rest] = input;
    if (!only || rest.length > 0) {
      throw new Error(
        `A durable agent's run starts from one user message, not ${input.length}: send the others with steer() or followUp()`,
      );
    }
    return promptText(only);
  }
  if (input.role !== 'user') {
    throw new Error(
      `A durable agent takes user messages only, not a message of role ${input.role}`,
    );
  }
  return userMessageText(input);
}

function userMessageText(message: UserMessage): string {
  if (typeof message.content === 'string') return message.content;
  const texts = message.content.map((block) => {
    if (block.type !== 'text') {
      throw new Error('A durable agent takes text prompts only: images cannot be sent to a job');
    }
    return block.text;
  });
  return texts.join('\n');
}
