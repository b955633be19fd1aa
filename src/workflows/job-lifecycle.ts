import {
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
} from '@temporalio/workflow';
import type { Message } from '../core/index.js';
import { countNewMessages } from './context-tokens.js';
import type { JobState } from './job-state.js';
import type { AgentJobInput, CarriedState } from './job-types.js';
import type { ProgressRecorder } from './progress-recorder.js';
import { queuesToCarry } from './carried-messages.js';
import { tooLargeToContinueAsNew } from './continue-as-new-size.js';

/** Waits for `ready` up to `timeoutMs`; false on timeout or when the job is cancelled. */
export async function waitForMessage(ready: () => boolean, timeoutMs: number): Promise<boolean> {
  try {
    return await condition(ready, timeoutMs);
  } catch (error) {
    if (isCancellation(error)) return false;
    throw error;
  }
}

/**
 * Hands the job to a fresh run before its history grows too large. Events and messages are
 * written to the store first, so the next run's input holds references and counters only, a
 * few kilobytes whatever the length of the job. `pending` are messages read from a queue and
 * not yet in the transcript; `idle` says the job was waiting for a message (kept open).
 *
 * Returns only when the next run's input would be too large to send (`continue-as-new-size.ts`):
 * the queues are back in `state`, and `pending` comes back for the run to go on with.
 */
export async function continueJobAsNew(
  input: AgentJobInput,
  state: JobState,
  progress: ProgressRecorder,
  pending: Message[],
  idle: boolean,
): Promise<{ pending: Message[] }> {
  await condition(allHandlersFinished);
  await progress.flush();
  // The next run starts without this run's messages: count them now.
  countNewMessages(state);
  const queues = await queuesToCarry({
    steering: state.steering.splice(0),
    followUps: state.followUps.splice(0),
    pending,
  });
  const carried: CarriedState = {
    transcript: state.transcript,
    ...queues,
    modelCalls: state.modelCalls,
    runs: state.runs + 1,
    lastSeq: state.lastSeq,
    usage: state.usage,
    runStart: state.runStart,
    startedAt: state.startedAt,
    ...(state.batchStop ? { batchStop: state.batchStop } : {}),
    ...(idle ? { idle } : {}),
    ...carriedContext(state),
  };
  const next: AgentJobInput = {
    ...input,
    ...(input.prompt.length > CARRIED_PROMPT_CHARACTERS ? { prompt: '' } : {}),
    carried,
  };
  if (tooLargeToContinueAsNew(next)) {
    // Stored ones stay in their thin form: smaller, and as good for the rest of the run.
    state.steering.unshift(...queues.steering);
    state.followUps.unshift(...queues.followUps);
    return { pending: queues.pending };
  }
  return continueAsNew<(input: AgentJobInput) => Promise<unknown>>(next);
}

/**
 * A continued run never reads its input's prompt (the prompt is the transcript's first message):
 * past this size it is left out, so that a large prompt does not ride in every run's input.
 */
const CARRIED_PROMPT_CHARACTERS = 4 * 1024;

/** The compaction facts a run hands on, only for a job that has them (old inputs stay as they were). */
function carriedContext(state: JobState): Partial<CarriedState> {
  const carried: Partial<CarriedState> = {};
  if (state.modelContext) carried.modelContext = state.modelContext;
  if (state.contextWindow !== undefined) carried.contextWindow = state.contextWindow;
  if (state.compactionCalls > 0) carried.compactionCalls = state.compactionCalls;
  if (state.compactions > 0) carried.compactions = state.compactions;
  if (state.contextTokens.tokens > 0) carried.contextTokens = state.contextTokens;
  // R22: calls still waiting and the last decisions (a late second decision is refused).
  if (state.approvals.length > 0) carried.approvals = state.approvals;
  return carried;
}
