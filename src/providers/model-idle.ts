import { parseDuration } from '../job-input/duration.js';

/** The worker setting: how long a model call may go without a byte from its provider. */
export const MODEL_IDLE_TIMEOUT_VARIABLE = 'DAR_MODEL_IDLE_TIMEOUT';

/**
 * Five minutes. A live stream is rarely silent that long: Anthropic sends `ping` events while it
 * works, and every byte counts, keep-alives included. A model that thinks in silence (OpenAI's
 * reasoning without a summary, a local server reading a long prompt) may be slow to send its
 * first byte, so the default stays well above a minute; the model call's own limit is 10 minutes.
 */
export const DEFAULT_MODEL_IDLE_TIMEOUT_MS = 5 * 60_000;

/**
 * The idle limit from the worker's environment: `DAR_MODEL_IDLE_TIMEOUT` as a duration (`90s`,
 * `5m`), `off` for none (undefined), unset for the default. Anything else is an error naming it.
 */
export function modelIdleTimeoutFrom(
  environment: NodeJS.ProcessEnv = process.env,
): number | undefined {
  const text = environment[MODEL_IDLE_TIMEOUT_VARIABLE]?.trim();
  if (!text) return DEFAULT_MODEL_IDLE_TIMEOUT_MS;
  if (text.toLowerCase() === 'off') return undefined;
  const milliseconds = parseDuration(text);
  if (milliseconds === undefined) {
    throw new Error(
      `${MODEL_IDLE_TIMEOUT_VARIABLE} must be a duration such as 90s or 5m, or off, not "${text}"`,
    );
  }
  return milliseconds;
}

/** Watches a model call for silence; see {@link watchIdle}. */
export interface IdleWatch {
  /** A sign of life (a response's headers, a chunk of its body): the silence starts again. */
  touch(): void;
  /** The call ended: no more watching. */
  stop(): void;
  /** Whether the limit passed without a sign of life (and `onIdle` ran). */
  readonly fired: boolean;
}

/**
 * Runs `onIdle` once when `limitMs` pass without a {@link IdleWatch.touch}, counted from now.
 * With no limit (undefined) it never fires. Why a watch of its own: the call's heartbeat goes on
 * while the worker lives, so Temporal cannot tell a provider that stopped sending from one
 * still at work; without it a stalled stream held the call until its 10-minute limit, on
 * every attempt.
 */
/**
 * The longest delay a Node timer takes (about 24.8 days); a longer one fires after 1 ms, which
 * would stop every call at once. A limit past it is waited out in steps of this size.
 */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

export function watchIdle(limitMs: number | undefined, onIdle: () => void): IdleWatch {
  let fired = false;
  let stopped = false;
  let lastSign = Date.now();
  let timer: NodeJS.Timeout | undefined;
  // One timer, moved on only when it comes due: a touch per streamed chunk costs a clock read.
  const check = () => {
    if (stopped || limitMs === undefined) return;
    const silentMs = Date.now() - lastSign;
    if (silentMs < limitMs) {
      timer = setTimeout(check, Math.min(limitMs - silentMs, LONGEST_TIMER_MS));
      return;
    }
    fired = true;
    onIdle();
  };
  if (limitMs !== undefined) timer = setTimeout(check, Math.min(limitMs, LONGEST_TIMER_MS));
  return {
    touch() {
      lastSign = Date.now();
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
    get fired() {
      return fired;
    },
  };
}
