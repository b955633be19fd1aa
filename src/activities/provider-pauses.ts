import { abortableSleep } from './abortable-sleep.js';

/**
 * The worker-side half of rate pacing: when a provider answers one job's call with a rate limit
 * and a `Retry-After`, the other model calls of this process to that provider wait it out too,
 * instead of each sending its request and collecting its own 429. Temporal's task-queue rate
 * limit decides how often calls start; this decides when they may reach the provider.
 */
export interface ProviderPauses {
  /** Holds the calls to `provider` for `milliseconds` from now (a longer pause already set wins). */
  pause(provider: string, milliseconds: number): void;
  /**
   * Resolves when a call to `provider` may go: at once, or when its pause ends. Rejects with the
   * signal's reason when `signal` aborts first (the call was cancelled).
   */
  waitFor(provider: string, signal: AbortSignal): Promise<void>;
  /** Milliseconds left of the pause on `provider` (0 when there is none). */
  remaining(provider: string): number;
}

/** Pauses kept in this object; `now` is injectable for tests. */
export function createProviderPauses(now: () => number = Date.now): ProviderPauses {
  const pausedUntil = new Map<string, number>();
  const remaining = (provider: string) => Math.max(0, (pausedUntil.get(provider) ?? 0) - now());
  return {
    pause(provider, milliseconds) {
      const until = now() + Math.max(0, milliseconds);
      if (until > (pausedUntil.get(provider) ?? 0)) pausedUntil.set(provider, until);
    },
    remaining,
    async waitFor(provider, signal) {
      // A pause may grow while a call waits (another 429): look again after each wait.
      for (let wait = remaining(provider); wait > 0; wait = remaining(provider)) {
        await abortableSleep(wait, signal);
      }
      signal.throwIfAborted();
    },
  };
}

/** No pauses: every call goes at once (for measuring a run without pacing). */
export const noProviderPauses: ProviderPauses = {
  pause: () => undefined,
  remaining: () => 0,
  waitFor: async (_provider, signal) => signal.throwIfAborted(),
};

/** The pauses every agent worker of this process shares (one provider limit, one pause). */
export const sharedProviderPauses: ProviderPauses = createProviderPauses();
