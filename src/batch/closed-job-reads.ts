/**
 * Reads of closed task jobs (their outcomes, earlier attempts) a batch makes at once. A re-run
 * of a finished batch reads every task back; sent all at once, 20,000 reads would each hold a
 * request and its answer in memory together, for no gain in time over a few dozen at once.
 */
export const CLOSED_JOB_READS_AT_ONCE = 32;

/** Runs each `work` given to it with at most `limit` running at once, in the order given. */
export function concurrencyLimit(limit: number): <T>(work: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  const release = () => {
    running -= 1;
    waiting.shift()?.();
  };
  return async <T>(work: () => Promise<T>): Promise<T> => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
    try {
      return await work();
    } finally {
      release();
    }
  };
}
