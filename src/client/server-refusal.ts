/**
 * Whether a failed request's error, or one of its causes (the client wraps the gRPC error, which
 * carries the server's words in `details`), says what `pattern` matches.
 */
export function refusalSays(error: unknown, pattern: RegExp): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    const details = (current as Error & { details?: unknown }).details;
    const text = `${current.message} ${typeof details === 'string' ? details : ''}`;
    if (pattern.test(text)) return true;
    current = current.cause;
  }
  return false;
}
