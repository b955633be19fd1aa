/**
 * When and how a job compacts the model's context (input `compaction`). Every field is optional;
 * a job without the setting compacts when its model's context window is known (pi-ai's model
 * registry knows it for the models it lists; a `scripted:` model has none, so a scripted job
 * compacts only with `contextWindow` set).
 */
export interface CompactionSettings {
  /** False turns compaction off for the job. Default true. */
  enabled?: boolean;
  /** The model's context window in tokens. Default: the model registry's, when it knows the model. */
  contextWindow?: number;
  /**
   * Tokens kept free for the model's answer: the job compacts before a model call when the
   * context is estimated at more than `contextWindow - reserveTokens`. Default 16,384, at most a
   * quarter of the window.
   */
  reserveTokens?: number;
  /**
   * Tokens of the newest messages kept as they are after compaction (about: the cut falls on the
   * next turn boundary); older ones are summarised. Default 20,000, at most a quarter of the window.
   */
  keepRecentTokens?: number;
}

export const DEFAULT_RESERVE_TOKENS = 16_384;
export const DEFAULT_KEEP_RECENT_TOKENS = 20_000;

/** The settings a decision uses, with every default filled in. */
export interface CompactionLimits {
  contextWindow: number;
  reserveTokens: number;
  keepRecentTokens: number;
}

/**
 * The limits for a job's next model call, or undefined when the job does not compact (turned
 * off, or no window known). `learnedWindow` is the window the model activity reported.
 */
export function compactionLimits(
  settings: CompactionSettings | undefined,
  learnedWindow: number | undefined,
): CompactionLimits | undefined {
  if (settings?.enabled === false) return undefined;
  const contextWindow = settings?.contextWindow ?? learnedWindow;
  if (contextWindow === undefined) return undefined;
  const quarter = Math.floor(contextWindow / 4);
  return {
    contextWindow,
    reserveTokens: settings?.reserveTokens ?? Math.min(DEFAULT_RESERVE_TOKENS, quarter),
    keepRecentTokens: settings?.keepRecentTokens ?? Math.min(DEFAULT_KEEP_RECENT_TOKENS, quarter),
  };
}
