/** Bad input from the user: printed as one line on stderr, exit code 2, nothing started. */
export class UsageError extends Error {
  override name = 'UsageError';
}
