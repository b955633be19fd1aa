/**
 * How fast a provider takes this worker's requests, learned from its answers: nothing is assumed
 * until it refuses one (a 429 or 503 with `Retry-After`). Then the requests this worker sent it
 * in the second before that first refusal, less the ones it refused, say roughly what its limit
 * lets through (read once the refusals of that burst are back: by the time a call asks for its
 * turn, the provider's pause is over), and from then on the worker's calls to it wait in line
 * and go one at a time at that rate instead of all at once (when a pause ends, every waiting call
 * would otherwise meet the same limit together). The rate grows by a small share with each accepted
 * request and shrinks by a larger one with each further refusal (at most once a second, so one
 * burst of refusals counts once), and is forgotten after a quiet spell, so that a raised limit or
 * a passing incident does not hold a provider back for good. Temporal's task-queue rate
 * (`--model-rate`) is the way to pace a provider whose limit is known; this is for the workers of
 * users who did not set one.
 */

/** No provider is paced slower than this by learning (its `Retry-After` pauses still hold). */
export const LOWEST_LEARNED_RATE_PER_SECOND = 1;
/** The share of the rate kept after a further refusal. */
export const LEARNED_RATE_KEPT_AFTER_REFUSAL = 0.7;
/** How much each accepted request adds to the rate: 5% a second while calls go at the rate. */
export const LEARNED_RATE_GROWTH_PER_ANSWER = 0.05;
/** A provider that refused nothing for this long is no longer paced. */
export const LEARNED_RATE_FORGOTTEN_AFTER_MS = 5 * 60_000;
/** The window the first rate is read from, and the shortest time between two decreases. */
const WINDOW_MS = 1000;
/** The first rate is read this long after the first refusal at the earliest (or at a turn). */
const SETTLE_MS = 250;

/** A call's turn to send: granted after `waitMs`, or not (the wait would be `waitMs`, too long). */
export interface RequestTurn {
  granted: boolean;
  waitMs: number;
}

interface Waiter {
  queuedAt: number;
  resolve: (turn: RequestTurn) => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal;
  onAbort: () => void;
}

export class LearnedRate {
  /** Requests a second, or undefined while the provider is not paced. */
  private rate: number | undefined;
  /** When the first refusal came, while its rate is still to be read. */
  private firstRefusalAt: number | undefined;
  private lastGrantAt = Number.NEGATIVE_INFINITY;
  /** No turn is given before this (the provider's `Retry-After` pause). */
  private heldUntil = Number.NEGATIVE_INFINITY;
  private lastRefusalAt = Number.NEGATIVE_INFINITY;
  private lastDecreaseAt = Number.NEGATIVE_INFINITY;
  /** A rate set or lowered since `takeChange` last said so. */
  private change: number | undefined;
  /** When the requests of the last two windows were sent, and refused, oldest first. */
  private readonly sent: number[] = [];
  private readonly refusals: number[] = [];
  /** Calls waiting for their turn, first come first served, and the timer of the next turn. */
  private readonly waiters: Waiter[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  /** Requests a second the provider is paced at; undefined when it is not (or not yet). */
  current(): number | undefined {
    this.settle(this.now());
    return this.rate;
  }

  /**
   * Waits for the call's turn to send: at once while the provider is not paced; otherwise in
   * line, one turn every 1/rate seconds at the rate of the moment (a rate lowered meanwhile
   * slows the line at once). A call whose turn would come more than `maxWaitMs` from now does
   * not join the line: it is told the expected wait instead. Rejects with the signal's reason
   * when `signal` aborts first.
   */
  async turn(maxWaitMs: number, signal: AbortSignal): Promise<RequestTurn> {
    signal.throwIfAborted();
    const now = this.now();
    // A call asks for its turn once its provider's pause is over: the burst's refusals are back.
    this.settle(now, true);
    if (this.rate === undefined) {
      this.granted(now);
      return { granted: true, waitMs: 0 };
    }
    const interval = 1000 / this.rate;
    const expected = this.firstTurnIn(now, interval) + this.waiters.length * interval;
    if (expected > maxWaitMs) return { granted: false, waitMs: expected };
    if (this.waiters.length === 0 && expected === 0) {
      this.granted(now);
      return { granted: true, waitMs: 0 };
    }
    return new Promise<RequestTurn>((resolve, reject) => {
      const waiter: Waiter = {
        queuedAt: now,
        resolve,
        reject,
        signal,
        onAbort: () => {
          const index = this.waiters.indexOf(waiter);
          if (index >= 0) this.waiters.splice(index, 1);
          reject(signal.reason as Error);
        },
      };
      signal.addEventListener('abort', waiter.onAbort, { once: true });
      this.waiters.push(waiter);
      this.schedule();
    });
  }

  /**
   * Gives no turn before `until` (the provider asked to wait): the calls in line go on from
   * then, one at a time, instead of one of them meeting the pause.
   */
  holdUntil(until: number): void {
    this.heldUntil = Math.max(this.heldUntil, until);
  }

  /** The provider answered a request (anything but a refusal to wait). */
  answered(): void {
    this.settle(this.now());
    if (this.rate !== undefined) this.rate += LEARNED_RATE_GROWTH_PER_ANSWER;
  }

  /** The provider refused a request and asked to wait. */
  refused(): void {
    const now = this.now();
    this.settle(now);
    this.lastRefusalAt = now;
    this.note(this.refusals, now);
    if (this.rate === undefined) {
      this.firstRefusalAt ??= now;
      return;
    }
    if (now - this.lastDecreaseAt < WINDOW_MS) return;
    this.rate = Math.max(
      LOWEST_LEARNED_RATE_PER_SECOND,
      this.rate * LEARNED_RATE_KEPT_AFTER_REFUSAL,
    );
    this.lastDecreaseAt = now;
    this.change = this.rate;
  }

  /** The rate, when it was set or lowered since the last call said so (for the worker's log). */
  takeChange(): number | undefined {
    const change = this.change;
    this.change = undefined;
    return change;
  }

  private granted(now: number): void {
    this.lastGrantAt = now;
    this.note(this.sent, now);
  }

  /** Milliseconds from `now` until the next turn may be given. */
  private firstTurnIn(now: number, interval: number): number {
    return Math.max(0, this.lastGrantAt + interval - now, this.heldUntil - now);
  }

  /** Sets the timer of the next turn, when calls wait and none is set. */
  private schedule(): void {
    if (this.timer !== undefined || this.waiters.length === 0) return;
    const interval = this.rate === undefined ? 0 : 1000 / this.rate;
    const wait = this.firstTurnIn(this.now(), interval);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.next();
    }, wait);
  }

  /** Gives the first waiting call its turn, then sets the timer of the one after. */
  private next(): void {
    const now = this.now();
    this.settle(now);
    // A pause set while the timer ran: the line waits for its end.
    if (now < this.heldUntil) {
      this.schedule();
      return;
    }
    const waiter = this.waiters.shift();
    if (waiter !== undefined) {
      waiter.signal.removeEventListener('abort', waiter.onAbort);
      this.granted(now);
      waiter.resolve({ granted: true, waitMs: now - waiter.queuedAt });
    }
    this.schedule();
  }

  /** Reads the first rate once the burst's refusals are back; forgets a rate after quiet. */
  private settle(now: number, atTurn = false): void {
    if (this.rate !== undefined && now - this.lastRefusalAt > LEARNED_RATE_FORGOTTEN_AFTER_MS) {
      this.rate = undefined;
    }
    const first = this.firstRefusalAt;
    if (first === undefined || (!atTurn && now - first < SETTLE_MS)) return;
    const sentBefore = this.sent.filter((at) => at > first - WINDOW_MS && at <= first).length;
    const refusedOfThem = this.refusals.filter((at) => at >= first - WINDOW_MS).length;
    this.rate = Math.max(LOWEST_LEARNED_RATE_PER_SECOND, sentBefore - refusedOfThem);
    this.firstRefusalAt = undefined;
    this.lastDecreaseAt = first;
    this.change = this.rate;
  }

  /** Notes `time` in `times`, keeping two windows of them. */
  private note(times: number[], time: number): void {
    times.push(time);
    let old = 0;
    while (old < times.length && (times[old] ?? 0) <= time - 2 * WINDOW_MS) old += 1;
    if (old > 0) times.splice(0, old);
  }
}
