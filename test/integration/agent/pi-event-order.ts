import type { AgentEvent } from '../../../src/core/index.js';

/** An event as the order checks name it: its type, and a message event's role after a colon. */
export function eventShape(event: AgentEvent): string {
  return 'message' in event && event.type.startsWith('message_')
    ? `${event.type}:${event.message.role}`
    : event.type;
}

/** Pi's events for a prompt whose first answer calls one tool and whose second answer stops. */
export const promptWithOneToolCall = [
  'agent_start',
  'turn_start',
  'message_start:user',
  'message_end:user',
  'message_start:assistant',
  'message_end:assistant',
  'tool_execution_start',
  'tool_execution_end',
  'message_start:toolResult',
  'message_end:toolResult',
  'turn_end',
  'turn_start',
  'message_start:assistant',
  'message_end:assistant',
  'turn_end',
  'agent_end',
];
