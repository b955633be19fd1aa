import type { JobStatus } from './job-types.js';
import { lastAssistantMessage, transcriptUsage, type JobState } from './job-state.js';

/** The status query's answer, read from the job's state. */
export function jobStatus(state: JobState, lastSeq: number, cancelled: boolean): JobStatus {
  const done = state.phase === 'done';
  const last = done ? lastAssistantMessage(state.messages) : undefined;
  return {
    phase: state.phase,
    turns: state.modelCalls,
    modelCalls: state.modelCalls,
    lastSeq,
    stopReason: last?.stopReason,
    errorMessage: last?.errorMessage,
    cancelled,
    usage: transcriptUsage(state.messages),
    continuedAsNew: state.runs,
  };
}
