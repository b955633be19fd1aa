import { UsageError } from './usage-error.js';

/**
 * The job id a job command was given (its first positional); an empty one is a
 * {@link UsageError}, before anything is asked: Temporal answers a bare "Failed to describe
 * workflow" to it, the job store "A record key must be a non-empty string".
 */
export function jobIdArgument(positionals: readonly string[]): string {
  const jobId = positionals[0] ?? '';
  if (jobId === '') {
    throw new UsageError('The job id is empty: give the id `dar run` printed or `dar list` shows');
  }
  return jobId;
}
