import type { Message } from '../../core/index.js';
import type { AgentJobInput, JobStatus, SequencedEvent } from '../job-types.js';
import type { JobOutcome } from '../job-outcome.js';

export type { JobPhase, JobStatus, SequencedEvent } from '../job-types.js';

/**
 * The state a job of the first release handed from one run to the next: the whole transcript
 * and event log, by value. Only jobs started before the job store still carry it.
 */
export interface LegacyCarriedState {
  messages: Message[];
  events: SequencedEvent[];
  steering: Message[];
  followUps: Message[];
  pending: Message[];
  modelCalls: number;
  runs: number;
  idle?: boolean;
}

export type LegacyJobInput = Omit<AgentJobInput, 'carried'> & { carried?: LegacyCarriedState };

/** What a job of the first release returns: the whole transcript. */
export interface LegacyJobResult {
  status: JobStatus;
  /** The transcript, or its newest part when the whole would not fit in one payload. */
  messages: Message[];
  omittedMessages?: number;
  outcome?: JobOutcome;
}

/** Whether a carried state is the first release's (it holds the transcript itself). */
export function isLegacyCarriedState(carried: unknown): carried is LegacyCarriedState {
  return (
    typeof carried === 'object' &&
    carried !== null &&
    Array.isArray((carried as { messages?: unknown }).messages)
  );
}
