/**
 * How long a model call waits before sending its request again after the provider asked it to
 * wait (a 429 or 503 with `Retry-After`). Never sooner than asked; longer with each refusal in a
 * row, so that a provider that keeps refusing is asked less and less often; and spread at random
 * over half as much again, so that the calls of a batch that were refused together do not all
 * come back at the same moment and meet the same limit again.
 */

/** The wait after the first refusal, when the provider asks for less. */
export const FIRST_RATE_LIMIT_WAIT_MS = 1000;
/** Growth stops here (a longer `Retry-After` is still honoured). */
export const LONGEST_GROWN_RATE_LIMIT_WAIT_MS = 30_000;
/** The random spread, as a share of the wait: up to half as long again. */
export const RATE_LIMIT_SPREAD = 0.5;

/**
 * The wait before the next request: `requestedMs` (the provider's `Retry-After`) or, when that
 * is shorter, a wait that doubles with each refusal in a row (`refusals` before this one, from
 * 0) up to a cap; then that plus a random part of up to `RATE_LIMIT_SPREAD` of it. `random`
 * returns a number in [0, 1) (`Math.random`, or a fixed one in tests).
 */
export function rateLimitWaitMs(
  requestedMs: number,
  refusals: number,
  random: () => number = Math.random,
): number {
  const grown = Math.min(
    FIRST_RATE_LIMIT_WAIT_MS * 2 ** Math.max(0, refusals),
    LONGEST_GROWN_RATE_LIMIT_WAIT_MS,
  );
  const wait = Math.max(requestedMs, grown);
  return Math.floor(wait * (1 + RATE_LIMIT_SPREAD * random()));
}
