import { textOf } from '../core/messages.js';
import type { SequencedLiveEvent } from '../live/live-events.js';
import type { SequencedEvent } from '../workflows/job-types.js';
import { createEventPrinter, formatEvent } from './event-format.js';
import { terminalText } from '../client/terminal-text.js';

export interface FollowPrinterOptions {
  /** JSON lines (live events carry `liveSeq` and `cursor`) instead of text for people. */
  json: boolean;
  /** Where it prints: stdout. */
  out: { write(text: string): unknown; isTTY?: boolean; columns?: number };
}

/** What a follower prints through: the job's events and its live events. */
export interface FollowPrinter {
  event: (event: SequencedEvent) => void;
  live: (event: SequencedLiveEvent) => void;
}

/** The answer being streamed: what was printed of it, to finish or take back. */
interface OpenAnswer {
  callIndex: number;
  attempt: number;
  text: string;
}

/**
 * Prints a followed job. Text mode: an answer's tokens are printed as they arrive, after
 * `assistant: `; its `message_end` then only ends the line (the final text is printed again
 * when it differs from what was streamed, and a failed answer's error line always). On a terminal the streamed answer is redrawn:
 * a retried call's partial answer is erased, and the final message replaces the streamed text.
 * To a pipe nothing is taken back: a void partial answer is followed by a note saying so. Bash
 * output lines are printed as `  | line`. JSON mode prints every event as a line; a live event
 * gets `cursor`, `SEQ:LIVESEQ`, which `dar events --follow --after` resumes from. Text mode
 * shows the control characters of the job's text as symbols (`terminalText`).
 */
export function createFollowPrinter(options: FollowPrinterOptions): FollowPrinter {
  const { out } = options;
  const printLine = (line: string) => out.write(`${line}\n`);
  const printEvent = createEventPrinter(options.json, printLine);
  let lastSeq = 0;
  if (options.json) {
    return {
      event(event) {
        lastSeq = event.seq;
        printEvent(event);
      },
      live(event) {
        printLine(JSON.stringify({ ...event, cursor: `${lastSeq}:${event.liveSeq}` }));
      },
    };
  }

  const terminal = out.isTTY === true;
  let open: OpenAnswer | undefined;
  let turn = 0;

  /** Rows the open answer takes on the terminal (its prefix included). */
  const rowsOf = (text: string): number => {
    const columns = Math.max(1, out.columns ?? 80);
    return text
      .split('\n')
      .reduce((rows, line) => rows + Math.max(1, Math.ceil(line.length / columns)), 0);
  };
  const erase = (answer: OpenAnswer) => {
    // To the start of the answer's first row, then clear to the end of the screen.
    const up = rowsOf(`assistant: ${answer.text}`) - 1;
    out.write(`\r${up > 0 ? `\x1b[${up}A` : ''}\x1b[J`);
  };
  const closeAnswer = () => {
    if (!open) return;
    out.write('\n');
    open = undefined;
  };

  return {
    event(event) {
      if (event.type === 'turn_start') turn += 1;
      if (open && event.type === 'message_end' && event.message.role === 'assistant') {
        const finalText = terminalText(textOf(event.message));
        const line = formatEvent(event, turn);
        const failed =
          event.message.stopReason === 'error' || event.message.stopReason === 'aborted';
        if (terminal) {
          erase(open);
          open = undefined;
          if (failed && line !== undefined) printLine(line);
          else if (finalText !== '') printLine(`assistant: ${finalText}`);
          return;
        }
        const streamed = open.text;
        closeAnswer();
        // A failed answer's line is its error (`assistant error: ...`): news, whatever streamed.
        if ((failed || finalText !== streamed) && line !== undefined) printLine(line);
        return;
      }
      // Events that do not show (message_start, turn_end ...) leave the answer's line open.
      const line = formatEvent(event, turn);
      if (line === undefined) return;
      closeAnswer();
      printLine(line);
    },
    live(event) {
      if (event.type === 'message_void') {
        if (!open || open.callIndex !== event.callIndex || open.attempt > event.attempt) return;
        if (terminal) erase(open);
        else out.write('\n[partial answer discarded: the model call is retried]\n');
        open = undefined;
        return;
      }
      if (event.type === 'tool_execution_update') {
        closeAnswer();
        const text = event.partialResult.content.map((block) => block.text).join('');
        for (const line of terminalText(text).replace(/\n$/, '').split('\n')) {
          printLine(`  | ${line}`);
        }
        return;
      }
      const delta = event.assistantMessageEvent;
      if (delta.type !== 'text_delta' || delta.delta === '') return;
      if (open && (open.callIndex !== event.callIndex || open.attempt !== event.attempt)) {
        closeAnswer();
      }
      if (!open) {
        open = { callIndex: event.callIndex, attempt: event.attempt, text: '' };
        out.write('assistant: ');
      }
      const shown = terminalText(delta.delta);
      open.text += shown;
      out.write(shown);
    },
  };
}
