export { UsageError } from '../job-input/usage-error.js';

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
/**
 * `dar run`: the job's budget (turns, tokens, cost or wall time) stopped it at a turn boundary;
 * `dar batch`: the batch's budget stopped the batch.
 */
export const EXIT_BUDGET = 3;
/** The job was cancelled (like a shell's Ctrl-C). */
export const EXIT_CANCELLED = 130;
