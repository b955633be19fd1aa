import type { LiveAssistantMessageEvent } from './live-events.js';

/** A tool call's arguments larger than this (as JSON) are left out of `toolcall_end`. */
const TOOL_CALL_END_ARGUMENT_CHARACTERS = 8_000;

/**
 * A provider's streamed event (Pi's `AssistantMessageEvent`) in the live stream's form: without
 * `partial`, and undefined for `done` / `error` (the job's `message_end` says how it ended)
 * and for anything not recognised.
 */
export function liveAssistantEvent(event: unknown): LiveAssistantMessageEvent | undefined {
  if (typeof event !== 'object' || event === null) return undefined;
  const source = event as Record<string, unknown>;
  const contentIndex = typeof source.contentIndex === 'number' ? source.contentIndex : 0;
  switch (source.type) {
    case 'start':
      return { type: 'start' };
    case 'text_start':
    case 'thinking_start':
    case 'toolcall_start':
      return { type: source.type, contentIndex };
    case 'text_delta':
    case 'thinking_delta':
    case 'toolcall_delta':
      return typeof source.delta === 'string'
        ? { type: source.type, contentIndex, delta: source.delta }
        : undefined;
    case 'text_end':
    case 'thinking_end':
      return typeof source.content === 'string'
        ? { type: source.type, contentIndex, content: source.content }
        : undefined;
    case 'toolcall_end': {
      const call = source.toolCall as { id?: unknown; name?: unknown; arguments?: unknown } | null;
      if (!call || typeof call.id !== 'string' || typeof call.name !== 'string') return undefined;
      const toolCall: { type: 'toolCall'; id: string; name: string; arguments?: unknown } = {
        type: 'toolCall',
        id: call.id,
        name: call.name,
      };
      const argumentsText = JSON.stringify(call.arguments ?? {});
      if (argumentsText.length <= TOOL_CALL_END_ARGUMENT_CHARACTERS) {
        toolCall.arguments = JSON.parse(argumentsText) as unknown;
      }
      return { type: 'toolcall_end', contentIndex, toolCall };
    }
    default:
      return undefined;
  }
}
