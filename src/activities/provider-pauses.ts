import { abortableSleep } from './abortable-sleep.js';
import { LearnedRate, type RequestTurn } from './learned-rate.js';

/**
 * The worker-side half of rate pacing: when a provider answers one job's call with a rate limit
 * and a `Retry-After`, the other model calls of this process to that provider wait it out too,
 * instead of each sending its request and collecting its own 429; and once a provider has
 * refused one, its requests go one at a time at the rate its answers showed (`LearnedRate`).
 * Temporal's task-queue rate limit decides how often calls start; this decides when they may
 * reach the provider.
 */
export interface ProviderPauses {
  /**
   * `provider` refused a request and asked to wait: holds the calls to it for `milliseconds`
   * from now (a longer pause already set wins), and paces it from then on (see `turn`).
   */
  pause(provider: string, milliseconds: number): void;
  /**
   * Resolves when a call to `provider` may go: at once, or when its pause ends. Rejects with the
   * signal's reason when `signal` aborts first (the call was cancelled).
   */
  waitFor(provider: string, signal: AbortSignal): Promise<void>;
  /** Milliseconds left of the pause on `provider` (0 when there is none). */
  remaining(provider: string): number;
  /**
   * Waits for the next request's turn to `provider`, after its pause: at once until it has
   * refused one; then in line at its learned rate (see `LearnedRate.turn`).
   */
  turn(provider: string, maxWaitMs: number, signal: AbortSignal): Promise<RequestTurn>;
  /** `provider` answered a request (anything but a refusal to wait). */
  answered(provider: string): void;
  /** The requests a second `provider` is paced at, when set or lowered since last asked. */
  takeRateChange(provider: string): number | undefined;
}

/** Pauses and learned rates kept in this object; `now` is injectable for tests. */
export function createProviderPauses(now: () => number = Date.now): ProviderPauses {
  const pausedUntil = new Map<string, number>();
  const rates = new Map<string, LearnedRate>();
  const rateOf = (provider: string) => {
    let rate = rates.get(provider);
    if (rate === undefined) rates.set(provider, (rate = new LearnedRate(now)));
    return rate;
  };
  const remaining = (provider: string) => Math.max(0, (pausedUntil.get(provider) ?? 0) - now());
  return {
    pause(provider, milliseconds) {
      const until = now() + Math.max(0, milliseconds);
      if (until > (pausedUntil.get(provider) ?? 0)) pausedUntil.set(provider, until);
      const rate = rateOf(provider);
      rate.holdUntil(until);
      rate.refused();
    },
    remaining,
    async waitFor(provider, signal) {
      // A pause may grow while a call waits (another 429): look again after each wait.
      for (let wait = remaining(provider); wait > 0; wait = remaining(provider)) {
        await abortableSleep(wait, signal);
      }
      signal.throwIfAborted();
    },
    turn: (provider, maxWaitMs, signal) => rateOf(provider).turn(maxWaitMs, signal),
    answered: (provider) => rateOf(provider).answered(),
    takeRateChange: (provider) => rates.get(provider)?.takeChange(),
  };
}

/** No pauses and no learned rates: every call goes at once (a run without pacing). */
export const noProviderPauses: ProviderPauses = {
  pause: () => undefined,
  remaining: () => 0,
  waitFor: async (_provider, signal) => signal.throwIfAborted(),
  turn: async (_provider, _maxWaitMs, signal) => {
    signal.throwIfAborted();
    return { granted: true, waitMs: 0 };
  },
  answered: () => undefined,
  takeRateChange: () => undefined,
};

/** The pauses every agent worker of this process shares (one provider limit, one pause, one rate). */
export const sharedProviderPauses: ProviderPauses = createProviderPauses();
