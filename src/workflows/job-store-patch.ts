/**
 * Marks histories of jobs that keep their transcript and events in the job store. A history
 * without it was recorded by the first release, which carried them by value: such a job (and
 * any run it continues as new into) goes on with that code, so it replays and finishes.
 */
export const JOB_STORE_PATCH = 'dar-job-store';
