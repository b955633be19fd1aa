import { renameSync, writeFileSync } from 'node:fs';
import type { Usage } from '../core/index.js';
import type { TaskProgress } from './batch-runner.js';
import type { TaskOutcome, TaskStatus } from './task-outcome.js';

/** How one attempt at a task ended. */
export interface AttemptRecord {
  attempt: number;
  workflowId: string;
  /** `skipped`: never started, because the batch's budget was spent first (see `error`). */
  status: TaskStatus | 'skipped';
  /** The final assistant text. */
  text: string;
  usage: Usage | null;
  /** Model calls; null when the job's state could not be read. */
  turns: number | null;
  /** Why it failed, was cancelled (rarely) or was skipped. */
  error?: string;
}

/**
 * One line of the results file: the task's latest attempt, and after `--retry-failed` the
 * attempts before it (oldest first) in `earlierAttempts`.
 */
export interface ResultLine extends AttemptRecord {
  id: string;
  earlierAttempts?: AttemptRecord[];
}

function attemptRecord(attempt: number, workflowId: string, outcome: TaskOutcome): AttemptRecord {
  const record: AttemptRecord = {
    attempt,
    workflowId,
    status: outcome.status,
    text: outcome.text,
    usage: outcome.usage,
    turns: outcome.turns,
  };
  if (outcome.error !== undefined) record.error = outcome.error;
  return record;
}

/** The latest attempt of a task: undefined while it is queued or running. */
function latestAttempt(progress: TaskProgress): AttemptRecord | undefined {
  const { outcome, attempt, workflowId } = progress;
  if (outcome) return attemptRecord(attempt, workflowId, outcome);
  if (progress.state !== 'skipped') return undefined;
  return {
    attempt,
    workflowId,
    status: 'skipped',
    text: '',
    usage: null,
    turns: null,
    error: progress.skipReason ?? 'not started',
  };
}

/** The line of a finished or skipped task; undefined while it is queued or running. */
export function resultLine(progress: TaskProgress): ResultLine | undefined {
  const latest = latestAttempt(progress);
  if (!latest) return undefined;
  const line: ResultLine = { id: progress.task.id, ...latest };
  if (progress.earlier.length > 0) {
    line.earlierAttempts = progress.earlier.map(({ attempt, workflowId, outcome }) =>
      attemptRecord(attempt, workflowId, outcome),
    );
  }
  return line;
}

/**
 * Writes the results file anew: one JSON line per finished (or skipped) task, in the order of the batch file.
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
