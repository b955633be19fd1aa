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

/**
 * The view of a stored event, when it can be made without reading the store: `agent_end`
 * (its messages are counted from its range, never read: a run of 2,000 turns would otherwise be
 * loaded whole for each viewer, to be counted), `turn_end`, and `message_start` whose message
 * names its role. Undefined for the others: they are read back whole, then viewed.
 */
export function viewWithoutReads(seq: number, stored: unknown): EventView | undefined {
  if (typeof stored !== 'object' || stored === null) return undefined;
  const body = stored as Record<string, unknown>;
  if (body.type === 'agent_end') {
    const range = body.messagesRange as { start?: unknown; end?: unknown } | undefined;
    if (typeof range?.start !== 'number' || typeof range.end !== 'number') return undefined;
    return { type: 'agent_end', seq, messageCount: range.end - range.start };
  }
  if (body.type === 'turn_end' && Array.isArray(body.toolResults)) {
    return { type: 'turn_end', seq, toolResultCount: body.toolResults.length };
  }
  if (body.type === 'message_start') {
    const role = (body.message as { role?: unknown } | undefined)?.role;
    if (typeof role === 'string') return { type: 'message_start', seq, role };
  }
  return undefined;
}

/** What a page shows of a live event: the event, every string cut at {@link MAX_TEXT_LENGTH}. */
export function liveEventView(event: SequencedLiveEvent): Record<string, unknown> {
  return cutStrings(event) as Record<string, unknown>;
}
