import type { SequencedLiveEvent } from '../live/live-events.js';
import type { SequencedEvent } from '../workflows/job-types.js';

/** Longest text sent to a page in one string; the rest is cut, with a note of how much. */
export const MAX_TEXT_LENGTH = 20_000;

/** An event as the console's pages get it: plain JSON with a `type` and a `seq`. */
export type EventView = Record<string, unknown> & { type: string; seq: number };

/** Cuts every long string of a JSON value (a tool's output, an image's data). */
function cutStrings(value: unknown): unknown {
  if (typeof value === 'string') {
    if (value.length <= MAX_TEXT_LENGTH) return value;
    const rest = value.length - MAX_TEXT_LENGTH;
    return `${value.slice(0, MAX_TEXT_LENGTH)}… (${rest} more characters)`;
  }
  if (Array.isArray(value)) return value.map(cutStrings);
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) copy[key] = cutStrings(inner);
    return copy;
  }
  return value;
}

/**
 * What a page shows of an event. Events that repeat what others carry are sent without it:
 * `agent_end`'s messages and `turn_end`'s message and tool results (each came in its
 * `message_end` or `tool_execution_end`), `message_start`'s message (its `message_end` follows).
 * Every string is cut at {@link MAX_TEXT_LENGTH}. Event types the console does not know (added
 * by a later release) are sent whole, and shown as they are.
 */
export function eventView(event: SequencedEvent): EventView {
  switch (event.type) {
    case 'agent_end':
      return { type: event.type, seq: event.seq, messageCount: event.messages.length };
    case 'turn_end':
      return { type: event.type, seq: event.seq, toolResultCount: event.toolResults.length };
    case 'message_start':
      return { type: event.type, seq: event.seq, role: event.message.role };
    default:
      return cutStrings(event) as EventView;
  }
}

/** What a page shows of a live event: the event, every string cut at {@link MAX_TEXT_LENGTH}. */
export function liveEventView(event: SequencedLiveEvent): Record<string, unknown> {
  return cutStrings(event) as Record<string, unknown>;
}
