import {
  addUsage,
  emptyUsage,
  type AssistantMessage,
  type Message,
  type Usage,
} from '../../core/index.js';
import type { LegacyJobInput as AgentJobInput, JobPhase } from './job-types.js';

/**
 * Everything a job knows between turns, as one plain-JSON object: what continue-as-new hands on
 * and what the status query reads. Events are kept apart (see EventLog).
 */
export interface JobState {
  /** The transcript so far; the core loop appends to it as it goes. */
  messages: Message[];
  /** Steering messages queued by signals, not yet injected (R20). */
  steering: Message[];
  /** Follow-up messages queued by signals, not yet injected (R20). */
  followUps: Message[];
  phase: JobPhase;
  /** Model calls made or under way, across continue-as-new. */
  modelCalls: number;
  /** How many times the job continued as new before this run. */
  runs: number;
}

/** The state a run starts from: the carried state after continue-as-new, else an empty one. */
export function initialJobState(input: AgentJobInput): JobState {
  const carried = input.carried;
  return {
    messages: carried?.messages ?? [],
    steering: carried?.steering ?? [],
    followUps: carried?.followUps ?? [],
    phase: 'starting',
    modelCalls: carried?.modelCalls ?? 0,
    runs: carried?.runs ?? 0,
  };
}

export function lastAssistantMessage(messages: readonly Message[]): AssistantMessage | undefined {
  return messages.findLast((message): message is AssistantMessage => message.role === 'assistant');
}

/** Tokens and cost of every assistant message of a transcript. */
export function transcriptUsage(messages: readonly Message[]): Usage {
  return messages.reduce(
    (total, message) => (message.role === 'assistant' ? addUsage(total, message.usage) : total),
    emptyUsage(),
  );
}
