import type { AssistantMessage, Message } from '../core/index.js';
import { contextTokensOfUsage, estimateMessageTokens } from '../compaction/token-estimate.js';
import { transcriptLength, type JobState } from './job-state.js';

/**
 * A message's estimated tokens; a stored tool result counts what its activity reported, a stored
 * user message the estimate its thin form carries.
 */
function messageTokens(state: JobState, message: Message): number {
  if (message.role === 'toolResult' && message.contentRef !== undefined) {
    const stored = state.storedResultTokens[message.contentRef] ?? 0;
    return stored + estimateMessageTokens(message);
  }
  if (message.role === 'user' && message.estimatedTokens !== undefined) {
    return message.estimatedTokens;
  }
  return estimateMessageTokens(message);
}

/**
 * Adds the estimates of the messages appended since the last count (tool results, prompts,
 * steering) to `state.contextTokens`. Deterministic: it reads only workflow state.
 */
export function countNewMessages(state: JobState): void {
  const end = transcriptLength(state);
  const counted = state.contextTokens;
  let tokens = counted.tokens;
  for (let position = Math.max(counted.countedTo, state.base); position < end; position += 1) {
    const message = state.messages[position - state.base];
    if (message) tokens += messageTokens(state, message);
  }
  state.contextTokens = { tokens, countedTo: end };
  state.storedResultTokens = {};
}

/**
 * Takes the size of the context from a model answer that is about to be appended: the tokens
 * its provider counted (prompt and answer), or, when it reported none, the model activity's
 * estimate of what it sent and got. A failed call says nothing about the context.
 */
export function countModelAnswer(
  state: JobState,
  answer: AssistantMessage,
  estimatedTokens: number | undefined,
): void {
  if (answer.stopReason === 'error' || answer.stopReason === 'aborted') return;
  const measured = contextTokensOfUsage(answer.usage);
  const tokens = measured > 0 ? measured : (estimatedTokens ?? state.contextTokens.tokens);
  state.contextTokens = { tokens, countedTo: transcriptLength(state) + 1 };
}
