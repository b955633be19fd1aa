import type { Sinks } from '@temporalio/workflow';
import type { ProgressWrite } from '../activities/progress-writer.js';

/**
 * The workflow's fire-and-forget channel for events and status: a sink call leaves the
 * workflow with the activation and is written by the worker without holding the workflow
 * task open (a local activity would). Not durable: a worker that dies first loses the write,
 * and sink calls are not made again on replay, so the recorder repeats every event in a
 * durable write (a local activity) now and then. See `createSinkRecorder`.
 */
export interface ProgressSinks extends Sinks {
  jobProgress: {
    /** Writes the job's progress soon, after the job's earlier writes. */
    write(progress: ProgressWrite): void;
  };
}

/**
 * Runs started from this release on write events through the sink; earlier histories
 * replay with a local activity per burst of events, as they were recorded.
 */
export const PROGRESS_SINK_PATCH = 'dar-progress-sink';
