import { taskSpend } from './batch-budget.js';
import type { TaskProgress } from './batch-runner.js';
import {
  countTasks,
  countsLine,
  estimateRemaining,
  formatCost,
  progressBar,
  timingLine,
} from './progress-summary.js';
import { terminalText } from '../client/terminal-text.js';

/** Shows a batch's progress as its tasks change state. */
export interface ProgressDisplay {
  change(progress: TaskProgress): void;
  /** A line about the whole batch (its budget spent, say), kept above a live block. */
  note(text: string): void;
  /** Draws the last state and lets go of the terminal. */
  end(): void;
}

/** A writable text stream: `process.stdout`, or a test's collector. */
export interface TextOutput {
  write(text: string): unknown;
  columns?: number;
}

/** `task-7 (attempt 2)` after a retry; `task-7` otherwise. */
function taskName(progress: TaskProgress): string {
  return progress.attempt > 1
    ? `${progress.task.id} (attempt ${progress.attempt})`
    : progress.task.id;
}

/** ` (3 turns, 1,200 tokens, $0.0120)`: what a finished task used, its earlier attempts too. */
function spendNote(progress: TaskProgress): string {
  if (!progress.outcome) return '';
  const { turns, usage } = taskSpend(progress);
  return ` (${turns} turns, ${usage.totalTokens.toLocaleString('en-US')} tokens, ${formatCost(usage.cost.total)})`;
}

function describeChange(progress: TaskProgress): string {
  const { state, outcome, origin, workflowId } = progress;
  const name = taskName(progress);
  if (state === 'running') {
    return `${name} running (${origin === 'attached' ? 'attached' : workflowId})`;
  }
  if (state === 'queued') return `${name} queued`;
  if (state === 'skipped') return `${name} skipped (not started): ${progress.skipReason ?? ''}`;
  const note = origin === 'finished' ? ' (earlier run)' : '';
  const reason = outcome?.error ? `: ${outcome.error}` : '';
  return `${name} ${state}${note}${spendNote(progress)}${reason}`;
}

/** Paces the ETA by the tasks this run saw finish. */
class Clock {
  readonly startedAt = Date.now();
  finishedThisRun = 0;

  note(progress: TaskProgress): void {
    if (progress.origin !== 'finished' && progress.outcome) this.finishedThisRun += 1;
  }

  timing(tasks: readonly TaskProgress[]): string {
    const counts = countTasks(tasks);
    const elapsed = Date.now() - this.startedAt;
    return timingLine(counts, elapsed, estimateRemaining(counts, this.finishedThisRun, elapsed));
  }
}

/** Not a terminal (a file, a pipe, CI): one line per task state change. */
export function plainProgress(output: TextOutput, tasks: readonly TaskProgress[]): ProgressDisplay {
  const clock = new Clock();
  return {
    change(progress) {
      clock.note(progress);
      output.write(
        terminalText(`${describeChange(progress)}  [${countsLine(countTasks(tasks))}]\n`),
      );
    },
    note(text) {
      output.write(`${terminalText(text)}\n`);
    },
    end() {
      output.write(`${countsLine(countTasks(tasks))}  ${clock.timing(tasks)}\n`);
    },
  };
}

const REDRAW_MS = 250;

/**
 * A terminal: a status block redrawn in place (counts, bar, tokens, elapsed, ETA); failures and
 * cancellations are printed above it as lines that stay.
 */
export function liveProgress(
  output: TextOutput,
  tasks: readonly TaskProgress[],
  title: string,
): ProgressDisplay {
  const clock = new Clock();
  let drawnLines = 0;
  const block = (): string[] => {
    // A terminal of unknown size (0 columns under `script`, say) is taken as 80 wide.
    const columns = output.columns !== undefined && output.columns > 0 ? output.columns : 80;
    const counts = countTasks(tasks);
    const bar = progressBar(counts, Math.max(10, Math.min(40, columns - 40)));
    // Lines never wrap: a wrapped line would throw off the cursor moves of the next redraw.
    return [`${title}  ${bar}`, countsLine(counts), clock.timing(tasks)].map((line) =>
      line.slice(0, Math.max(20, columns - 1)),
    );
  };
  // Up to the block's first line, clear to the end of the screen, write anew.
  const redraw = (above = '') => {
    const up = drawnLines > 0 ? `\x1b[${drawnLines}F\x1b[J` : '';
    const lines = block();
    output.write(`${up}${above}${lines.join('\n')}\n`);
    drawnLines = lines.length;
  };
  const timer = setInterval(() => redraw(), REDRAW_MS);
  timer.unref();
  redraw();
  return {
    change(progress) {
      clock.note(progress);
      const lasting =
        progress.state === 'failed' ||
        progress.state === 'cancelled' ||
        progress.state === 'skipped';
      redraw(lasting ? `${terminalText(describeChange(progress))}\n` : '');
    },
    note(text) {
      redraw(`${terminalText(text)}\n`);
    },
    end() {
      clearInterval(timer);
      redraw();
    },
  };
}
