const RETRYABLE = Symbol.for('durable-agent-runner.RetryableToolError');

/**
 * Thrown by a tool body for a failure worth another attempt (a busy resource, a flaky
 * network). Other thrown errors end the call at once with their message. Only a tool declared
 * `replay: 'safe'` gets another attempt; for any other tool it ends the call too. Marked with a
 * symbol rather than checked with `instanceof`, so that it survives module duplication.
 */
export class RetryableToolError extends Error {
  readonly [RETRYABLE] = true;
}

export function isRetryableToolError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && RETRYABLE in error;
}
