import type { AgentEvent, Message, ToolExecutionResult, ToolResultMessage } from '../core/index.js';
import { summaryOf } from '../compaction/summary-request.js';
import type { JsonValue, ObjectRef } from '../store/references.js';
import type { SequencedEvent } from '../workflows/job-types.js';
import {
  hydrateMessage,
  loadTranscript,
  withStoredContent,
  type ReadObject,
} from './transcript-nodes.js';

type StoredEventBody = Record<string, unknown> & { type: string };

/**
 * An event as the job store holds it, made whole for a reader: messages and tool results by
 * reference are read back, and `agent_end`'s transcript range becomes its `messages`. The
 * result is the SPEC event (Pi's `AgentEvent` shape) with its sequence number.
 */
export async function hydrateEvent(
  read: ReadObject,
  seq: number,
  stored: JsonValue,
): Promise<SequencedEvent> {
  const body = stored as unknown as StoredEventBody;
  switch (body.type) {
    case 'message_start':
    case 'message_end':
    case 'message_update':
      return {
        ...body,
        message: await hydrateMessage(read, body.message as Message),
        seq,
      } as SequencedEvent;
    case 'turn_end': {
      const toolResults = await Promise.all(
        (body.toolResults as ToolResultMessage[]).map((message) => hydrateMessage(read, message)),
      );
      return {
        ...body,
        message: await hydrateMessage(read, body.message as Message),
        toolResults,
        seq,
      } as SequencedEvent;
    }
    case 'tool_execution_end':
      return {
        ...body,
        result: await withStoredContent(read, body.result as ToolExecutionResult),
        seq,
      } as SequencedEvent;
    case 'agent_end': {
      const range = body.messagesRange as
        { start: number; end: number; head: string | null } | undefined;
      if (!range) return { ...body, seq } as SequencedEvent;
      const messages = await loadTranscript(
        read,
        { head: range.head, count: range.end },
        range.start,
        range.end,
      );
      const event: AgentEvent = { type: 'agent_end', messages };
      return { ...event, seq };
    }
    case 'compaction': {
      const summary = (await read(body.summaryRef as ObjectRef)) as unknown as Message;
      return { ...body, summary: summaryOf(summary), seq } as SequencedEvent;
    }
    default:
      return { ...body, seq } as SequencedEvent;
  }
}
