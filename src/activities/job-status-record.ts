import type { JobStatus, TranscriptPointer } from '../workflows/job-types.js';

/** Store record namespace of each job's latest status (key: the workflow id). */
export const JOB_STATUS_RECORD = 'job-status';

/**
 * A job's status as stored: the status query's answer and where the transcript is. Written with
 * every flush of the job's events, after them: phase `done` means every event is stored.
 */
export type StoredJobStatus = JobStatus & { transcript: TranscriptPointer };
