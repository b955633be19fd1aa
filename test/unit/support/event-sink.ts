import type { AgentEvent } from '../../../src/core/index.js';

/** Records every event; `labels` renders them compactly for order assertions. */
export interface EventSink {
  events: AgentEvent[];
  emit(event: AgentEvent): void;
  labels(filter?: (event: AgentEvent) => boolean): string[];
}

/** `tool_execution_end:a`, `message_start:toolResult:a`, `message_end:user`, `turn_end`. */
export function labelOf(event: AgentEvent): string {
  switch (event.type) {
    case 'tool_execution_start':
    case 'tool_execution_update':
    case 'tool_execution_end':
      return `${event.type}:${event.toolCallId}`;
    case 'message_start':
    case 'message_end':
    case 'message_update': {
      const { message } = event;
      return message.role === 'toolResult'
        ? `${event.type}:toolResult:${message.toolCallId}`
        : `${event.type}:${message.role}`;
    }
    default:
      return event.type;
  }
}

export function recordingSink(): EventSink {
  const events: AgentEvent[] = [];
  return {
    events,
    emit(event) {
      events.push(event);
    },
    labels(filter = () => true) {
      return events.filter(filter).map(labelOf);
    },
  };
}

export const isToolEvent = (event: AgentEvent): boolean =>
  event.type.startsWith('tool_execution') ||
  ((event.type === 'message_start' || event.type === 'message_end') &&
    event.message.role === 'toolResult');
