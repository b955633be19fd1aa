import type { CompactionSettings } from '../workflows/compaction-settings.js';
import { UsageError } from './usage-error.js';

/** The compaction flags of `dar run`, as typed. */
export interface CompactionFlags {
  contextWindow?: string | undefined;
  noCompaction?: boolean | undefined;
}

/**
 * `--context-window N` (the model's window in tokens, for a model the registry does not know) and
 * `--no-compaction` as the job's `compaction` setting; undefined when neither is given.
 */
export function parseCompactionFlags(flags: CompactionFlags): CompactionSettings | undefined {
  if (flags.noCompaction) {
    if (flags.contextWindow !== undefined) {
      throw new UsageError('--context-window and --no-compaction do not go together');
    }
    return { enabled: false };
  }
  if (flags.contextWindow === undefined) return undefined;
  const text = flags.contextWindow.trim();
  if (!/^\d+$/.test(text) || Number(text) < 1) {
    throw new UsageError(
      `--context-window must be a whole number of tokens, not "${flags.contextWindow}"`,
    );
  }
  return { contextWindow: Number(text) };
}
