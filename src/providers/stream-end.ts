import type { RealProviderApi } from './real-providers.js';

/**
 * How each API's stream says that the answer is complete, as text of its body: a Chat
 * Completions choice's `finish_reason` (OpenAI-compatible servers send it, and most `[DONE]`
 * after it), or the Responses API's final event. The quotes must be the JSON's own, so text the
 * model wrote (escaped inside a string) never matches. Anthropic's Messages streams need none:
 * pi-ai refuses one that ends before `message_stop`.
 */
const END_OF_STREAM: Partial<Record<RealProviderApi, RegExp>> = {
  'openai-completions': /"finish_reason"\s*:\s*"|(?:^|\n)data:\s*\[DONE\]/,
  'openai-responses': /"type"\s*:\s*"response\.(?:completed|incomplete|failed|done)"/,
};

export function endOfStreamMarker(api: RealProviderApi): RegExp | undefined {
  return END_OF_STREAM[api];
}

/** Whether a `content-type` names a server-sent event stream (what every API here streams). */
export function isEventStream(contentType: string): boolean {
  return /^\s*text\/event-stream\b/i.test(contentType);
}
