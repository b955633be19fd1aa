import type { Static } from '@sinclair/typebox';
import {
  emptyUsage,
  type AssistantMessage,
  type ModelRequest,
  type ToolExecutionResult,
} from '../../../src/core/index.js';
import type { echoToolSpec } from './echo-tool.js';

/** A canned model: its answer depends only on how many assistant turns the transcript holds. */
export async function cannedModel(request: ModelRequest): Promise<AssistantMessage> {
  const turn = request.messages.filter((message) => message.role === 'assistant').length;
  const base = { role: 'assistant' as const, usage: emptyUsage(), timestamp: Date.now() };
  if (turn === 0) {
    return {
      ...base,
      stopReason: 'toolUse',
      content: [
        { type: 'toolCall', id: 'call-1', name: 'echo', arguments: { text: 'hi', times: '3' } },
        { type: 'toolCall', id: 'call-2', name: 'echo', arguments: { text: 'no', times: 'many' } },
      ],
    };
  }
  const lastResult = request.messages.at(-2);
  const seen = lastResult?.role === 'toolResult' ? 'saw results' : 'saw nothing';
  return { ...base, stopReason: 'stop', content: [{ type: 'text', text: `done, ${seen}` }] };
}

export async function echo(
  args: Static<typeof echoToolSpec.parameters>,
): Promise<ToolExecutionResult> {
  const text = Array.from({ length: args.times }, () => args.text).join(' ');
  return { content: [{ type: 'text', text: args.loud ? text.toUpperCase() : text }] };
}
