import type { SseEvent } from './fake-model-server.js';

/**
 * Anthropic Messages API streams (`POST /v1/messages` with `stream: true`), as the real API
 * sends them: message_start, then per content block content_block_start, deltas and
 * content_block_stop, then message_delta (stop reason, output tokens) and message_stop.
 */

export type AnthropicBlock =
  | { type: 'text'; chunks: string[] }
  | { type: 'tool_use'; id: string; name: string; jsonChunks: string[]; unfinished?: boolean };

export interface AnthropicStreamOptions {
  stopReason: 'end_turn' | 'tool_use' | 'max_tokens';
  inputTokens?: number;
  outputTokens?: number;
  model?: string;
}

function event(type: string, data: Record<string, unknown>): SseEvent {
  return { event: type, data: JSON.stringify({ type, ...data }) };
}

export function anthropicStream(
  blocks: AnthropicBlock[],
  options: AnthropicStreamOptions,
): SseEvent[] {
  const events: SseEvent[] = [
    event('message_start', {
      message: {
        id: `msg_${Math.random().toString(36).slice(2)}`,
        type: 'message',
        role: 'assistant',
        model: options.model ?? 'claude-fake',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: options.inputTokens ?? 10, output_tokens: 1 },
      },
    }),
    { event: 'ping', data: JSON.stringify({ type: 'ping' }) },
  ];
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      events.push(
        event('content_block_start', { index, content_block: { type: 'text', text: '' } }),
      );
      for (const text of block.chunks) {
        events.push(event('content_block_delta', { index, delta: { type: 'text_delta', text } }));
      }
    } else {
      events.push(
        event('content_block_start', {
          index,
          content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
        }),
      );
      for (const partial_json of block.jsonChunks) {
        events.push(
          event('content_block_delta', {
            index,
            delta: { type: 'input_json_delta', partial_json },
          }),
        );
      }
    }
    events.push(event('content_block_stop', { index }));
  });
  events.push(
    event('message_delta', {
      delta: { stop_reason: options.stopReason, stop_sequence: null },
      usage: { output_tokens: options.outputTokens ?? 5 },
    }),
    event('message_stop', {}),
  );
  return events;
}

/** The body of an Anthropic API error (`{"type":"error","error":{...}}`). */
export function anthropicError(type: string, message: string) {
  return { type: 'error', error: { type, message } };
}
