/** Bad input from the user: printed as one line on stderr, exit code 2, nothing started. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
/** The job was cancelled (like a shell's Ctrl-C). */
export const EXIT_CANCELLED = 130;
