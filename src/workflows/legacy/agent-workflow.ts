import { CancellationScope, CancelledFailure, workflowInfo } from '@temporalio/workflow';
import { runAgentLoop, userMessage } from '../../core/index.js';
import { createActivityEffects } from './activity-effects.js';
import { EventLog } from './event-log.js';
import { installJobHandlers } from './job-handlers.js';
import type { CheckedJob } from '../job-input-check.js';
import { continueJobAsNew, waitForMessage } from './job-lifecycle.js';
import { jobOutcome } from '../job-outcome.js';
import { resultMessages } from '../result-messages.js';
import { initialJobState } from './job-state.js';
import { jobStatus } from './job-status.js';
import type {
  LegacyJobInput as AgentJobInput,
  LegacyJobResult as AgentJobResult,
} from './job-types.js';
import { startJobVisibility } from '../job-visibility.js';
import type { ReleaseFeatures } from '../release-features.js';

const DEFAULT_SYSTEM_PROMPT =
  'You are a careful agent working in a workspace through the tools you are given.';

/**
 * The agent job as the first release ran it, with the transcript and events carried by value in
 * history. Kept so that jobs started before the job store replay and finish after an upgrade
 * (`agent-workflow.ts` sends them here); new jobs never run it. Do not change its behaviour.
 */
export async function runLegacyAgentJob(
  input: AgentJobInput,
  { tools, beforeToolCall }: CheckedJob,
  features: ReleaseFeatures,
): Promise<AgentJobResult> {
  const carried = input.carried;
  const state = initialJobState(input);
  const log = new EventLog(carried?.events ?? []);
  // Search attributes DarPhase, DarTurns, DarBatchId (patched: old histories replay as before).
  const publish = startJobVisibility(input.batchId, features);
  const root = CancellationScope.current();
  const isAborted = () => root.consideredCancelled;

  installJobHandlers(state, log, isAborted);
  const effects = createActivityEffects({ input, state, log, publish, isAborted });
  const config = {
    systemPrompt: input.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
    tools,
    toolExecution: input.toolExecution ?? 'parallel',
    beforeToolCall,
  };

  let prompts = carried ? carried.pending : [userMessage(input.prompt, Date.now())];
  let resume = carried !== undefined;
  let idle = carried?.idle ?? false;
  for (;;) {
    if (!idle) {
      const outcome = await runAgentLoop(prompts, state, config, effects, {
        resume,
        shouldPause: () => workflowInfo().continueAsNewSuggested,
        // The first release's histories settled a promise for every event.
        awaitEveryEmit: true,
        syncToolSteps: false,
      });
      if (outcome.paused) await continueJobAsNew(input, state, log, outcome.paused.pending, false);
      if (input.keepOpenMs === undefined || isAborted() || outcome.stopReason === 'error') break;
    }
    idle = false;
    if (workflowInfo().continueAsNewSuggested) await continueJobAsNew(input, state, log, [], true);
    // A kept-open job waits for the next message; it starts a new run (agent_start again).
    state.phase = 'waiting';
    publish(state.phase, state.modelCalls);
    const arrived = await waitForMessage(
      () => state.steering.length + state.followUps.length > 0,
      input.keepOpenMs ?? 0,
    );
    if (!arrived) break;
    prompts = [...state.steering.splice(0), ...state.followUps.splice(0)];
    resume = false;
  }

  state.phase = 'done';
  publish(state.phase, state.modelCalls);
  if (isAborted()) throw new CancelledFailure('Agent job cancelled');
  const status = jobStatus(state, log.lastSeq, false);
  return {
    status,
    ...resultMessages(state.messages),
    outcome: jobOutcome(status, state.messages),
  };
}
