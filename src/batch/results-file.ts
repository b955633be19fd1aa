import { closeSync, openSync, renameSync, writeSync } from 'node:fs';
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

/** Bytes gathered before each write to the file: one string of every line could pass V8's limit. */
const WRITE_CHUNK_BYTES = 1024 * 1024;

/**
 * Writes the results file anew: one JSON line per finished (or skipped) task, in the order of the
 * batch file. Written to a temporary file and renamed over the old one, so a reader (or a kill)
 * never sees half a file. Tasks finished by an earlier run are there too: their lines come from
 * their workflows, not from an old results file. Written a chunk at a time, never as one string:
 * 70,000 answers of 8 KB made a string longer than V8 allows, and the throw ended `dar batch`.
 */
export function writeResults(path: string, tasks: readonly TaskProgress[]): number {
  const temporary = `${path}.${process.pid}.tmp`;
  const descriptor = openSync(temporary, 'w');
  let written = 0;
  try {
    let chunk: string[] = [];
    let chunkLength = 0;
    const writeChunk = () => {
      const bytes = Buffer.from(chunk.join(''), 'utf8');
      // A write may take fewer bytes than it was given: go on from where it stopped.
      for (let offset = 0; offset < bytes.length;) {
        offset += writeSync(descriptor, bytes, offset, bytes.length - offset);
      }
      chunk = [];
      chunkLength = 0;
    };
    for (const progress of tasks) {
      const line = resultLine(progress);
      if (!line) continue;
      const text = `${JSON.stringify(line)}\n`;
      chunk.push(text);
      chunkLength += text.length;
      written += 1;
      if (chunkLength >= WRITE_CHUNK_BYTES) writeChunk();
    }
    writeChunk();
  } finally {
    closeSync(descriptor);
  }
  renameSync(temporary, path);
  return written;
}

/**
 * The wait before the next rewrite: `intervalMs`, or four times as long as the last rewrite
 * took when that is longer, so that rewriting a large file takes at most a fifth of the time
 * (the batch's worker runs on the same thread, and its jobs' heartbeats with it).
 */
export function nextRewriteDelay(intervalMs: number, lastRewriteMs: number): number {
  return Math.max(intervalMs, 4 * lastRewriteMs);
}

/**
 * Rewrites the results file at most once per `intervalMs` while the batch runs (less often
 * when a rewrite is slow: see {@link nextRewriteDelay}).
 */
export function throttledResults(path: string, tasks: readonly TaskProgress[], intervalMs = 1000) {
  let timer: NodeJS.Timeout | undefined;
  let lastRewriteMs = 0;
  const rewrite = () => {
    const started = Date.now();
    const lines = writeResults(path, tasks);
    lastRewriteMs = Date.now() - started;
    return lines;
  };
  return {
    schedule(): void {
      timer ??= setTimeout(
        () => {
          timer = undefined;
          rewrite();
        },
        nextRewriteDelay(intervalMs, lastRewriteMs),
      );
    },
    flush(): number {
      if (timer) clearTimeout(timer);
      timer = undefined;
      return rewrite();
    },
  };
}
