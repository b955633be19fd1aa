import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * Polls `probe` until it returns something other than undefined, null or false, and resolves
 * with that. Throws after `timeoutMs` (default 30 s), naming `what` and the probe's last error.
 */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  options: WaitOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const intervalMs = options.intervalMs ?? 200;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== null && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const reason = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${reason}`);
    }
    await sleep(intervalMs);
  }
}

export { sleep };
