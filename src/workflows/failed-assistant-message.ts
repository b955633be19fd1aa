import { emptyUsage, type AssistantMessage } from '../core/index.js';

/** The assistant message of a model call that was aborted (R21) or failed for good (R2). */
export function failedAssistantMessage(
  stopReason: 'error' | 'aborted',
  text: string,
): AssistantMessage {
  return {
    role: 'assistant',
    content: [],
    usage: emptyUsage(),
    stopReason,
    errorMessage: text,
    timestamp: Date.now(),
  };
}
