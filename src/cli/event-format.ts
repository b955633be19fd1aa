import { textOf } from '../core/messages.js';
import type { ToolExecutionResult } from '../core/index.js';
import type { SequencedEvent } from '../workflows/job-types.js';
import { terminalText } from '../client/terminal-text.js';

const PREVIEW_LENGTH = 160;

function preview(text: string, length = PREVIEW_LENGTH): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= length ? flat : `${flat.slice(0, length - 1)}…`;
}

function resultText(result: ToolExecutionResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : '[image]')).join(' ');
}

function argumentsPreview(args: unknown): string {
  try {
    return preview(JSON.stringify(args) ?? '', 120);
  } catch {
    return '';
  }
}

/**
 * One line (or none) for a person reading a job's progress, safe to print to a terminal (see
 * `terminalText`). Tool result messages are not printed: their `tool_execution_end` already was.
 */
export function formatEvent(event: SequencedEvent, turn: number): string | undefined {
  const line = describeEvent(event, turn);
  return line === undefined ? undefined : terminalText(line);
}

function describeEvent(event: SequencedEvent, turn: number): string | undefined {
  switch (event.type) {
    case 'agent_start':
      return 'agent started';
    case 'turn_start':
      return `-- turn ${turn} --`;
    case 'message_end': {
      const message = event.message;
      if (message.role === 'user') return `user: ${preview(textOf(message))}`;
      if (message.role !== 'assistant') return undefined;
      if (message.stopReason === 'error' || message.stopReason === 'aborted') {
        return `assistant ${message.stopReason}: ${message.errorMessage ?? ''}`.trim();
      }
      const text = textOf(message);
      return text ? `assistant: ${preview(text, 400)}` : undefined;
    }
    case 'tool_execution_start':
      return `  > ${event.toolName} ${argumentsPreview(event.args)}`;
    case 'tool_execution_end':
      return `  ${event.isError ? 'x' : 'ok'} ${event.toolName}: ${preview(resultText(event.result))}`;
    case 'agent_end':
      return 'agent finished';
    case 'approval_requested': {
      const deadline =
        event.deadline === undefined
          ? 'no deadline'
          : `until ${new Date(event.deadline).toISOString()}, then ${event.onTimeout ?? 'deny'}`;
      return `  ? ${event.toolName} waits for approval (call ${event.toolCallId}, ${deadline}): ${preview(event.reason)}`;
    }
    case 'approval_decided': {
      const verb = event.decision === 'approve' ? 'approved' : 'denied';
      const how =
        event.source === 'operator'
          ? `${verb}${event.by ? ` by ${event.by}` : ''}`
          : event.source === 'timeout'
            ? `${verb} on timeout`
            : 'no longer waits (job cancelled)';
      return `  ${how}: ${event.toolName} (call ${event.toolCallId})${event.note ? `: ${preview(event.note)}` : ''}`;
    }
    case 'compaction': {
      const { start, end } = event.summarised;
      const range = end - start === 1 ? `message ${start}` : `messages ${start}-${end - 1}`;
      return (
        `context compacted: ${range} summarised (about ${event.tokensBefore} tokens, ` +
        `now ${event.tokensAfter}, window ${event.contextWindow})`
      );
    }
    default:
      return undefined;
  }
}

/** Prints events as they come: JSON lines, or human lines that count turns. */
export function createEventPrinter(json: boolean, write: (line: string) => void = console.log) {
  let turn = 0;
  return (event: SequencedEvent): void => {
    if (json) {
      write(JSON.stringify(event));
      return;
    }
    if (event.type === 'turn_start') turn += 1;
    const line = formatEvent(event, turn);
    if (line !== undefined) write(line);
  };
}
