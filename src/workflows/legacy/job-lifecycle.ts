import { allHandlersFinished, condition, continueAsNew } from '@temporalio/workflow';
import type { Message } from '../../core/index.js';
import type { EventLog } from './event-log.js';
import type { JobState } from './job-state.js';
import type { LegacyJobInput as AgentJobInput } from './job-types.js';

/**
 * Hands the job to a fresh run before its history grows too large: the state goes into the
 * next run's input (`carried`). `pending` are messages read from a queue and not yet in the
 * transcript; `idle` says the job was waiting for a message (kept open).
 */
export async function continueJobAsNew(
  input: AgentJobInput,
  state: JobState,
  log: EventLog,
  pending: Message[],
  idle: boolean,
): Promise<never> {
  await condition(allHandlersFinished);
  return continueAsNew<(input: AgentJobInput) => Promise<unknown>>({
    ...input,
    carried: {
      messages: state.messages,
      events: log.all(),
      steering: state.steering.splice(0),
      followUps: state.followUps.splice(0),
      pending,
      modelCalls: state.modelCalls,
      runs: state.runs + 1,
      ...(idle ? { idle } : {}),
    },
  });
}

export { waitForMessage } from '../job-lifecycle.js';
