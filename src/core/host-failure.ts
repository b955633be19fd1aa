const HOST_FAILURE = Symbol.for('durable-agent-runner.HostFailure');

/**
 * A failure of the host running the preflight, not of the call: the preflight lets it through
 * instead of answering the call with it (in a job, it fails the workflow task, which another
 * worker retries). Marked with a symbol so that it survives module duplication.
 */
export class HostFailure extends Error {
  readonly [HOST_FAILURE] = true;
}

export function isHostFailure(error: unknown): boolean {
  return typeof error === 'object' && error !== null && HOST_FAILURE in error;
}
