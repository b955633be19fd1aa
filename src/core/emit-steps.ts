import type { ToolBatchEffects } from './effects.js';
import type { AgentEvent } from './events.js';
import type { Message } from './messages.js';

/** A step that finished at once, or a promise of it. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * Runs `next` after `step`: at once when `step` finished at once, else when it settles. A run
 * whose host emits synchronously (a workflow) makes no promise for its events this way.
 */
export function andThen<T>(
  step: MaybePromise<unknown>,
  next: () => MaybePromise<T>,
): MaybePromise<T> {
  return isPromiseLike(step) ? Promise.resolve(step).then(next) : next();
}

export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * Emits one event. With `awaitEvery`, the result is always a promise, which the caller awaits
 * (one microtask even for a synchronous emit): the timing of runs recorded before the
 * `dar-features-2026-12c` release, which a workflow replaying them must keep. Without it, a
 * synchronous emit's result is nothing, and the caller goes on at once.
 */
export function emitEvent(
  effects: Pick<ToolBatchEffects, 'emit'>,
  event: AgentEvent,
  awaitEvery: boolean,
): MaybePromise<void> {
  const emitted = effects.emit(event);
  return awaitEvery ? Promise.resolve(emitted) : emitted;
}

/**
 * A message's `message_start` then `message_end`, each waited for only when its emit returned
 * a promise (the `awaitEveryEmit` off path of the loop and the tool batch).
 */
export function emitMessage(
  effects: Pick<ToolBatchEffects, 'emit'>,
  message: Message,
): MaybePromise<void> {
  return andThen(effects.emit({ type: 'message_start', message }), () =>
    effects.emit({ type: 'message_end', message }),
  );
}
