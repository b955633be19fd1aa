import { CancellationScope, CancelledFailure, workflowInfo } from '@temporalio/workflow';
import './compiled-validators.js';
import {
  drainQueue,
  runAgentLoop,
  userMessage,
  type AgentLoopEffects,
  type AssistantMessage,
  type ToolSpec,
  usePatternEngine,
} from '../core/index.js';
import { createActivityEffects } from './activity-effects.js';
import { budgetSpentNow } from './budget-stop.js';
import { installJobApprovals } from './job-approvals.js';
import { isQuiet, noWaits } from './job-waits.js';
import { installJobHandlers } from './job-handlers.js';
import { checkJobInput, type CheckedJob } from './job-input-check.js';
import { continueJobAsNew, waitForMessage } from './job-lifecycle.js';
import { jobOutcome } from './job-outcome.js';
import { initialJobState, transcriptLength } from './job-state.js';
import { jobStatus } from './job-status.js';
import type { AgentJobInput, AgentJobResult, CarriedState } from './job-types.js';
import { startJobVisibility } from './job-visibility.js';
import { JOB_STORE_PATCH } from './job-store-patch.js';
import { jobQueueModes, takeRunPrompts, withQueueModes } from './job-queue-modes.js';
import { runLegacyAgentJob } from './legacy/agent-workflow.js';
import { isLegacyCarriedState, type LegacyJobInput } from './legacy/job-types.js';
import { createLocalActivityRecorder, createSinkRecorder } from './progress-recorder.js';
import { resolveUserTools } from './user-tools.js';
import { PROGRESS_SINK_PATCH } from './progress-sink.js';
import {
  FEWER_PROMISES_FEATURE,
  LINEAR_SCHEMA_PATTERNS_FEATURE,
  SYNC_TOOL_STEPS_FEATURE,
  perFeaturePatches,
  releaseFeatures,
  type ReleaseFeatures,
} from './release-features.js';

const DEFAULT_SYSTEM_PROMPT =
  'You are a careful agent working in a workspace through the tools you are given.';

/**
 * Builds the agent workflow for a set of tool specs (the built-in ones in production; tests add
 * their own). Each turn: the model call is an activity; preflight and policy run here; every
 * prepared tool body is an activity of its own. Cancelling the workflow aborts the run (R21).
 * A kept-open job waits after each run for a message that starts the next one; a long job
 * continues as new at a turn boundary or while it waits.
 */
export function makeAgentWorkflow(toolSpecs: Readonly<Record<string, ToolSpec>>) {
  return async function agentJob(input: AgentJobInput): Promise<AgentJobResult> {
    const carried = input.carried;
    // A first-release job's runs keep that release's per-feature patches.
    const features = isLegacyCarriedState(carried) ? perFeaturePatches : releaseFeatures();
    // Tools given to the worker rather than bundled: described by it (none asked for: no command).
    const userTools = await resolveUserTools(input, toolSpecs, features);
    const checked = checkJobInput(input, { ...toolSpecs, ...userTools });
    if (isLegacyCarriedState(carried) || !features.has(JOB_STORE_PATCH)) {
      usePatternEngine('backtracking');
      return runLegacyAgentJob(input as LegacyJobInput, checked, features);
    }
    // Schema patterns as the run's release matched them (set before any call is validated).
    usePatternEngine(features.has(LINEAR_SCHEMA_PATTERNS_FEATURE) ? 'linear' : 'backtracking');
    return runAgentJob(input, carried, checked, features);
  };
}

async function runAgentJob(
  startInput: AgentJobInput,
  carried: CarriedState | undefined,
  { tools, beforeToolCall }: CheckedJob,
  features: ReleaseFeatures,
): Promise<AgentJobResult> {
  const modes = jobQueueModes(startInput, features);
  // The modes travel in the input of every run this job continues as new into.
  const input = withQueueModes(startInput, modes);
  const state = initialJobState(carried, workflowInfo().startTime.getTime());
  if (input.budget) state.budget = input.budget;
  // Search attributes DarPhase, DarTurns, DarBatchId (patched: old histories replay as before).
  const publish = startJobVisibility(input.batchId, features);
  const root = CancellationScope.current();
  const isAborted = () => root.consideredCancelled;
  const statusOf = () => jobStatus(state, isAborted());
  const progress = features.has(PROGRESS_SINK_PATCH)
    ? createSinkRecorder(state, statusOf)
    : createLocalActivityRecorder(state, statusOf);

  // What the job waits on: a quiet job answers `heldObjectsQuery` settled.
  const waits = noWaits();
  installJobHandlers(input, state, isAborted, () => isQuiet(waits));
  // Hooks get the run's abort signal, fired when the workflow is cancelled (no command).
  const abort = new AbortController();
  root.cancelRequested.catch(() => abort.abort());
  const effects: AgentLoopEffects = {
    ...createActivityEffects({ input, state, progress, publish, isAborted, features, waits }),
    // R22: a call the policy sends for approval waits here, durably, for the decideApproval update.
    awaitApproval: installJobApprovals({ state, progress, publish, waits }),
    signal: abort.signal,
    // The queues deliver by the job's modes (jobs of earlier releases: all at once).
    takeSteeringMessages: (mode) => drainQueue(state.steering, mode),
    takeFollowUpMessages: (mode) => drainQueue(state.followUps, mode),
  };
  const config = {
    systemPrompt: input.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
    tools,
    toolExecution: input.toolExecution ?? 'parallel',
    beforeToolCall,
    ...modes,
  };
  const oneAtATime = modes.steeringMode === 'one-at-a-time';

  let prompts = carried ? carried.pending : [userMessage(input.prompt, Date.now())];
  let resume = carried !== undefined;
  let idle = carried?.idle ?? false;
  let fromQueue = false;
  /**
   * When the next run's input was last too large to send: the model calls made and the messages
   * waiting (queued or pending). The run asks again only after a model call, with fewer waiting:
   * nothing else makes the input smaller (a system prompt near the limit keeps the job in one
   * run), and the call guarantees the run moves on between two tries.
   */
  let tooLarge: { modelCalls: number; waiting: number } | undefined;
  const queued = () => state.steering.length + state.followUps.length;
  const mayContinueAsNew = () =>
    workflowInfo().continueAsNewSuggested &&
    (tooLarge === undefined ||
      (state.modelCalls > tooLarge.modelCalls && queued() < tooLarge.waiting));
  for (;;) {
    if (!idle) {
      if (!resume) state.runStart = transcriptLength(state);
      const outcome = await runAgentLoop(prompts, state, config, effects, {
        resume,
        // One at a time: prompts taken from a queue are the first turn's only new messages.
        skipInitialSteeringPoll: oneAtATime && (resume ? prompts.length > 0 : fromQueue),
        shouldPause: mayContinueAsNew,
        // A spent budget ends the run at a turn boundary, before the next model call.
        shouldStopBeforeTurn: () => budgetSpentNow(state),
        // Runs of earlier releases settled a promise for every event: their histories need it.
        awaitEveryEmit: !features.has(FEWER_PROMISES_FEATURE),
        // ... and runs before release 2026-12d a promise for each step of a tool call.
        syncToolSteps: features.has(SYNC_TOOL_STEPS_FEATURE),
      });
      if (outcome.paused) {
        const notSent = await continueJobAsNew(
          input,
          state,
          progress,
          outcome.paused.pending,
          false,
        );
        // Too large to send: the run goes on where it paused.
        tooLarge = { modelCalls: state.modelCalls, waiting: queued() + notSent.pending.length };
        prompts = notSent.pending;
        resume = true;
        continue;
      }
      if (input.keepOpenMs === undefined || isAborted() || outcome.stopReason === 'error') break;
      if (state.budgetExceeded) break;
    }
    idle = false;
    if (mayContinueAsNew()) {
      await continueJobAsNew(input, state, progress, [], true);
      tooLarge = { modelCalls: state.modelCalls, waiting: queued() };
    }
    // A kept-open job waits for the next message; it starts a new run (agent_start again).
    state.phase = 'waiting';
    publish(state.phase, state.modelCalls);
    await progress.flush();
    waits.message = true;
    const arrived = await waitForMessage(
      () => state.steering.length + state.followUps.length > 0 || state.batchStop !== undefined,
      input.keepOpenMs ?? 0,
    );
    waits.message = false;
    if (!arrived) break;
    // A message that arrives after the budget ran out starts no run: the job ends.
    if (budgetSpentNow(state)) break;
    prompts = takeRunPrompts(state, modes);
    fromQueue = true;
    resume = false;
  }

  state.phase = 'done';
  publish(state.phase, state.modelCalls);
  await progress.flush();
  if (isAborted()) throw new CancelledFailure('Agent job cancelled');
  const status = jobStatus(state, false);
  const last = state.messages.findLast(
    (message): message is AssistantMessage => message.role === 'assistant',
  );
  return {
    status,
    // The text is the client's to read from the stored final message.
    outcome: { ...jobOutcome(status, []), text: '' },
    transcript: state.transcript,
    ...(last?.ref === undefined ? {} : { finalMessageRef: last.ref }),
  };
}
