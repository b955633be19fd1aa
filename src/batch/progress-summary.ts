import { batchSpend } from './batch-budget.js';
import type { TaskProgress } from './batch-runner.js';

/**
 * How many of a batch's tasks are where, and what its jobs used: finished ones, every earlier
 * attempt, and running ones as last read.
 */
export interface BatchCounts {
  total: number;
  /** Finished normally. */
  done: number;
  running: number;
  failed: number;
  cancelled: number;
  queued: number;
  /** Never started: the batch's budget was spent first. */
  skipped: number;
  tokens: number;
  /** US dollars, as the providers report it. */
  costUsd: number;
  turns: number;
}

export function countTasks(tasks: readonly TaskProgress[]): BatchCounts {
  const counts: BatchCounts = {
    total: tasks.length,
    done: 0,
    running: 0,
    failed: 0,
    cancelled: 0,
    queued: 0,
    skipped: 0,
    tokens: 0,
    costUsd: 0,
    turns: 0,
  };
  for (const { state } of tasks) {
    if (state === 'completed') counts.done += 1;
    else counts[state] += 1;
  }
  const spend = batchSpend(tasks);
  counts.tokens = spend.usage.totalTokens;
  counts.costUsd = spend.usage.cost.total;
  counts.turns = spend.turns;
  return counts;
}

/** `0:07`, `12:34`, `1:02:03`. */
export function formatDuration(milliseconds: number): string {
  const seconds = Math.max(0, Math.round(milliseconds / 1000));
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = String(seconds % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${rest}` : `${minutes}:${rest}`;
}

/**
 * Time left, from the pace of the tasks this run finished: unknown until one has. Tasks found
 * finished from an earlier run say nothing about the pace.
 */
export function estimateRemaining(
  counts: BatchCounts,
  finishedThisRun: number,
  elapsedMs: number,
): number | undefined {
  const remaining = counts.running + counts.queued;
  if (remaining === 0) return 0;
  if (finishedThisRun === 0) return undefined;
  return (remaining * elapsedMs) / finishedThisRun;
}

/** `done 12/50  running 10  failed 1  cancelled 0  queued 27` (and `skipped N` when some are). */
export function countsLine(counts: BatchCounts): string {
  const skipped = counts.skipped > 0 ? `  skipped ${counts.skipped}` : '';
  return (
    `done ${counts.done}/${counts.total}  running ${counts.running}  failed ${counts.failed}  ` +
    `cancelled ${counts.cancelled}  queued ${counts.queued}${skipped}`
  );
}

/** `$0.0123`: costs are small, four decimals show a single cheap call. */
export function formatCost(usd: number): string {
  return `$${usd.toFixed(4)}`;
}

/** `turns 34  tokens 12,345  cost $0.0123  elapsed 0:12  eta 0:38` */
export function timingLine(
  counts: BatchCounts,
  elapsedMs: number,
  etaMs: number | undefined,
): string {
  const eta = etaMs === undefined ? '?' : formatDuration(etaMs);
  return (
    `turns ${counts.turns}  tokens ${counts.tokens.toLocaleString('en-US')}  ` +
    `cost ${formatCost(counts.costUsd)}  elapsed ${formatDuration(elapsedMs)}  eta ${eta}`
  );
}

/** `[#########...........]` for the share of tasks that are over (done, failed, cancelled, skipped). */
export function progressBar(counts: BatchCounts, width: number): string {
  const over = counts.done + counts.failed + counts.cancelled + counts.skipped;
  const filled = counts.total === 0 ? width : Math.round((over / counts.total) * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
}
