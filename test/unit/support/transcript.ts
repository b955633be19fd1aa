import type { Message, ToolResultMessage } from '../../../src/core/index.js';
import { toolCallsOf } from '../../../src/core/index.js';

/**
 * R4: every tool call of an assistant message is answered by exactly one tool result, and the
 * results follow that message directly, in source order. Messages with stopReason `error` or
 * `aborted` are the one exception the spec itself makes (R2: no tool results); for those the
 * helper instead checks that no result answers their calls.
 */
export function expectEveryToolCallAnswered(messages: readonly Message[]): void {
  const answered = new Set<string>();
  messages.forEach((message, index) => {
    if (message.role !== 'assistant') return;
    const callIds = toolCallsOf(message).map((call) => call.id);
    const results: ToolResultMessage[] = [];
    for (let next = index + 1; next < messages.length; next += 1) {
      const candidate = messages[next]!;
      if (candidate.role !== 'toolResult') break;
      results.push(candidate);
    }
    if (message.stopReason === 'error' || message.stopReason === 'aborted') {
      expect(results).toEqual([]);
      return;
    }
    expect(results.map((result) => result.toolCallId)).toEqual(callIds);
    for (const result of results) {
      expect(answered.has(result.toolCallId)).toBe(false);
      answered.add(result.toolCallId);
    }
  });
  const allResults = messages.filter((message) => message.role === 'toolResult');
  expect(allResults).toHaveLength(answered.size);
}

export function resultsOf(messages: readonly Message[]): ToolResultMessage[] {
  return messages.filter((message): message is ToolResultMessage => message.role === 'toolResult');
}

export function textOfResult(result: ToolResultMessage | undefined): string {
  if (!result) throw new Error('no tool result');
  return result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}
