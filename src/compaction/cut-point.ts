import type { Message } from '../core/index.js';
import { estimateMessageTokens } from './token-estimate.js';

/**
 * Whether the model's context may start at `messages[index]` after a summary: a user or an
 * assistant message. Never a tool result: it would be cut off from the assistant message whose
 * tool call it answers, and providers refuse a tool result without its call.
 */
export function isCutPoint(messages: readonly Message[], index: number): boolean {
  const message = messages[index];
  return message !== undefined && message.role !== 'toolResult';
}

/**
 * Where to cut `messages` (the part of the context that compaction may summarise, oldest first):
 * the index of the first message to keep, so that the kept messages hold about
 * `keepRecentTokens` (estimated) and everything before the cut is summarised. Walks back from the
 * newest message until the kept part reaches `keepRecentTokens`, then moves forward to the next
 * cut point ({@link isCutPoint}), so an assistant message and its tool results stay together;
 * when the newest turn alone is larger than that, the cut is the nearest one before it. At least one message is summarised and one kept; undefined when no cut does both (a context
 * that is one message, or one assistant message with its tool results).
 */
export function chooseCutPoint(
  messages: readonly Message[],
  keepRecentTokens: number,
): number | undefined {
  let boundary = 0;
  let kept = 0;
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message === undefined) continue;
    kept += estimateMessageTokens(message);
    if (kept >= keepRecentTokens) {
      boundary = index;
      break;
    }
  }
  for (let index = Math.max(boundary, 1); index < messages.length; index += 1) {
    if (isCutPoint(messages, index)) return index;
  }
  // The newest turn alone holds more than `keepRecentTokens`: keep it whole, summarise the rest.
  for (let index = Math.min(boundary, messages.length) - 1; index >= 1; index -= 1) {
    if (isCutPoint(messages, index)) return index;
  }
  return undefined;
}
