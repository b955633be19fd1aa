import type { Message, Usage } from '../core/index.js';

/** Characters per token assumed by the estimates: rough, and on the high side for code. */
export const CHARACTERS_PER_TOKEN = 4;

/** Tokens assumed for one image block (what Pi assumes too). */
export const IMAGE_TOKENS = 1200;

function textTokens(characters: number): number {
  return Math.ceil(characters / CHARACTERS_PER_TOKEN);
}

function contentTokens(content: Message['content']): number {
  if (typeof content === 'string') return textTokens(content.length);
  let characters = 0;
  let images = 0;
  for (const block of content) {
    switch (block.type) {
      case 'text':
        characters += block.text.length;
        break;
      case 'thinking':
        characters += block.thinking.length;
        break;
      case 'toolCall':
        characters += block.name.length + (JSON.stringify(block.arguments) ?? '').length;
        break;
      case 'image':
        images += 1;
        break;
    }
  }
  return textTokens(characters) + images * IMAGE_TOKENS;
}

/**
 * An estimate of the tokens a message takes in a model's context, from its characters (four a
 * token). A message in its thin form (a stored tool result's `contentRef`, an assistant
 * message's `ref`) counts only what it holds here. Pure and deterministic: workflow code uses it.
 */
export function estimateMessageTokens(message: Message): number {
  return contentTokens(message.content);
}

/**
 * The tokens of a model's whole context as its provider counted them in an answer's usage: the
 * prompt (fresh, cached and cache-written tokens) plus the answer. 0 when the provider reported
 * no usage.
 */
export function contextTokensOfUsage(usage: Usage): number {
  return usage.input + usage.cacheRead + usage.cacheWrite + usage.output;
}
