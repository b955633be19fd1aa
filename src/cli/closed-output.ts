/**
 * Standard output's reader went away (`dar events ID | head -5`). Printing more is pointless,
 * and the write's `EPIPE` error, unhandled, would crash the command with a stack trace: for
 * `dar run`, with its worker in the middle of one of the job's steps. `stdoutClosed` is aborted
 * instead; a command that watches a job stops as it does on Ctrl-C, and what is still printed
 * meanwhile goes nowhere.
 */
const closed = new AbortController();

/** Aborted once standard output's reader has gone (see `watchStdout`). */
export const stdoutClosed: AbortSignal = closed.signal;

let watching = false;

/** Turns write errors on `stream` (standard output) into `stdoutClosed`; once per process. */
export function watchStdout(stream: NodeJS.EventEmitter = process.stdout): void {
  if (watching) return;
  watching = true;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    // Once the reader is gone, every later write fails too (EPIPE, or a destroyed stream).
    if (error.code === 'EPIPE' || closed.signal.aborted) {
      closed.abort(new Error('Standard output was closed'));
      return;
    }
    throw error;
  });
}
