/**
 * Milliseconds a tool body gets to stop once its call is cancelled (a cancelled job, a worker
 * shutting down) before the call ends without it. Built-in tools stop at once (bash kills its
 * process group within 2 s); a user's tool that ignores the abort signal must not hold up the
 * job's cancellation or the worker's shutdown for as long as the body would run.
 */
export const ABORT_GRACE_MS = 5000;

/** Why a call ended before its body did. */
export class AbandonedAfterAbort extends Error {
  constructor(graceMs: number) {
    super(
      `the tool body did not stop within ${graceMs} ms of the cancellation and was left running`,
    );
    this.name = 'AbandonedAfterAbort';
  }
}

/**
 * `work`, or a rejection with {@link AbandonedAfterAbort} when `signal` has been aborted for
 * `graceMs` and `work` has still not settled. `work` itself goes on (a promise cannot be
 * stopped); its later outcome is ignored.
 */
export function settleOrAbandon<T>(
  work: Promise<T>,
  signal: AbortSignal,
  graceMs = ABORT_GRACE_MS,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const startGrace = () => {
      timer = setTimeout(() => reject(new AbandonedAfterAbort(graceMs)), graceMs);
    };
    if (signal.aborted) startGrace();
    else signal.addEventListener('abort', startGrace, { once: true });
    const finish = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', startGrace);
    };
    work.then(
      (value) => {
        finish();
        resolve(value);
      },
      (error: unknown) => {
        finish();
        // As thrown: the caller words a thrown plain object as JSON (what the model reads).
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
        reject(error);
      },
    );
  });
}
