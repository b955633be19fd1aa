import type { SseEvent } from './fake-model-server.js';

/**
 * OpenAI Responses API streams (`POST /v1/responses` with `stream: true`), which pi-ai uses for
 * `openai:` models: response.created, output items with their deltas, response.completed with
 * usage.
 */

export type ResponsesItem =
  | { type: 'message'; chunks: string[] }
  | { type: 'function_call'; callId: string; name: string; argumentChunks: string[] };

export function responsesStream(
  items: ResponsesItem[],
  usage: { input: number; output: number },
): SseEvent[] {
  const responseId = `resp_${Math.random().toString(36).slice(2)}`;
  let sequence = 0;
  const event = (type: string, data: Record<string, unknown>): SseEvent => ({
    event: type,
    data: JSON.stringify({ type, sequence_number: sequence++, ...data }),
  });
  const events: SseEvent[] = [
    event('response.created', {
      response: { id: responseId, object: 'response', status: 'in_progress', output: [] },
    }),
  ];
  items.forEach((item, output_index) => {
    if (item.type === 'message') {
      const id = `msg_${output_index}`;
      const text = item.chunks.join('');
      events.push(
        event('response.output_item.added', {
          output_index,
          item: { type: 'message', id, role: 'assistant', status: 'in_progress', content: [] },
        }),
        event('response.content_part.added', {
          item_id: id,
          output_index,
          content_index: 0,
          part: { type: 'output_text', text: '', annotations: [] },
        }),
        ...item.chunks.map((delta) =>
          event('response.output_text.delta', {
            item_id: id,
            output_index,
            content_index: 0,
            delta,
          }),
        ),
        event('response.output_item.done', {
          output_index,
          item: {
            type: 'message',
            id,
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text, annotations: [] }],
          },
        }),
      );
    } else {
      const id = `fc_${output_index}`;
      const base = { type: 'function_call', id, call_id: item.callId, name: item.name };
      events.push(
        event('response.output_item.added', {
          output_index,
          item: { ...base, arguments: '', status: 'in_progress' },
        }),
        ...item.argumentChunks.map((delta) =>
          event('response.function_call_arguments.delta', { item_id: id, output_index, delta }),
        ),
        event('response.output_item.done', {
          output_index,
          item: { ...base, arguments: item.argumentChunks.join(''), status: 'completed' },
        }),
      );
    }
  });
  events.push(
    event('response.completed', {
      response: {
        id: responseId,
        object: 'response',
        status: 'completed',
        usage: {
          input_tokens: usage.input,
          output_tokens: usage.output,
          total_tokens: usage.input + usage.output,
          input_tokens_details: { cached_tokens: 0 },
        },
      },
    }),
  );
  return events;
}
