import type { SseEvent } from './fake-model-server.js';

/**
 * OpenAI Chat Completions streams (`POST /v1/chat/completions` with `stream: true`), the
 * protocol of OpenAI-compatible servers: `data: {chunk}` lines with content and tool_calls
 * deltas, a finish_reason, a usage chunk (stream_options.include_usage), then `data: [DONE]`.
 */

export interface ChatToolCall {
  /** Left out of the stream when undefined (some compatible servers send no ids). */
  id?: string;
  name: string;
  argumentChunks: string[];
}

export interface ChatStreamOptions {
  finishReason: 'stop' | 'tool_calls' | 'length';
  text?: string[];
  toolCalls?: ChatToolCall[];
  promptTokens?: number;
  completionTokens?: number;
  model?: string;
}

export function chatStream(options: ChatStreamOptions): SseEvent[] {
  const id = `chatcmpl-${Math.random().toString(36).slice(2)}`;
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): SseEvent => ({
    data: JSON.stringify({
      id,
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model: options.model ?? 'fake-model',
      choices,
      ...extra,
    }),
  });
  const delta = (value: Record<string, unknown>) =>
    chunk([{ index: 0, delta: value, finish_reason: null }]);

  const events: SseEvent[] = [delta({ role: 'assistant', content: '' })];
  for (const text of options.text ?? []) events.push(delta({ content: text }));
  (options.toolCalls ?? []).forEach((call, index) => {
    events.push(
      delta({
        tool_calls: [
          {
            index,
            ...(call.id === undefined ? {} : { id: call.id }),
            type: 'function',
            function: { name: call.name, arguments: '' },
          },
        ],
      }),
    );
    for (const piece of call.argumentChunks) {
      events.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  events.push(chunk([{ index: 0, delta: {}, finish_reason: options.finishReason }]));
  const prompt = options.promptTokens ?? 12;
  const completion = options.completionTokens ?? 7;
  events.push(
    chunk([], {
      usage: {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
      },
    }),
  );
  events.push({ data: '[DONE]' });
  return events;
}
