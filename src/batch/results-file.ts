import { renameSync, writeFileSync } from 'node:fs';
import type { Usage } from '../core/index.js';
import type { TaskProgress } from './batch-runner.js';
import type { TaskStatus } from './task-outcome.js';

/** One line of the results file. */
export interface ResultLine {
  id: string;
  status: TaskStatus;
  /** The final assistant text. */
  text: string;
  usage: Usage | null;
  workflowId: string;
  error?: string;
}

/** The line of a finished task; undefined while it is queued or running. */
export function resultLine(progress: TaskProgress): ResultLine | undefined {
  const { outcome } = progress;
  if (!outcome) return undefined;
  const line: ResultLine = {
    id: progress.task.id,
    status: outcome.status,
    text: outcome.text,
    usage: outcome.usage,
    workflowId: progress.workflowId,
  };
  if (outcome.error !== undefined) line.error = outcome.error;
  return line;
}

/**
 * Writes the results file anew: one JSON line per finished task, in the order of the batch file.
 * Written to a temporary file and renamed over the old one, so a reader (or a kill) never sees
 * half a file. Tasks finished by an earlier run are there too: their lines come from their
 * workflows, not from an old results file.
 */
export function writeResults(path: string, tasks: readonly TaskProgress[]): number {
  const lines = tasks.flatMap((progress) => {
    const line = resultLine(progress);
    return line ? [JSON.stringify(line)] : [];
  });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, lines.map((line) => `${line}\n`).join(''));
  renameSync(temporary, path);
  return lines.length;
}

/** Rewrites the results file at most once per `intervalMs` while the batch runs. */
export function throttledResults(path: string, tasks: readonly TaskProgress[], intervalMs = 1000) {
  let timer: NodeJS.Timeout | undefined;
  return {
    schedule(): void {
      timer ??= setTimeout(() => {
        timer = undefined;
        writeResults(path, tasks);
      }, intervalMs);
    },
    flush(): number {
      if (timer) clearTimeout(timer);
      timer = undefined;
      return writeResults(path, tasks);
    },
  };
}
