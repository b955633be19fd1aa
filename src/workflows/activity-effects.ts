import {
  ActivityFailure,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { ToolCallEnding } from '../activities/answered-tool-calls.js';
import type { AgentActivities } from '../activities/index.js';
import type { ExecuteToolWithStoreResult } from '../activities/store-activities.js';
import { OPERATION_ABORTED, addUsage, type AgentLoopEffects } from '../core/index.js';
import {
  isReplaySafe,
  storeLocalActivityOptions,
  toolActivityOptions,
} from './activity-options.js';
import { failedAssistantMessage } from './failed-assistant-message.js';
import { failureMessage } from './failure-message.js';
import { modelCalls } from './model-calls.js';
import { isLostAttempt, toolFailureMessage } from './tool-failure-message.js';
import { compactIfNeeded } from './context-compaction.js';
import { storeBeforeModelCall } from './large-messages.js';
import { countModelAnswer } from './context-tokens.js';
import { toolsPhase } from './approval-state.js';
import { advanceTranscript, modelCallsMade, unstoredMessages, type JobState } from './job-state.js';
import type { AgentJobInput } from './job-types.js';
import type { JobWaits } from './job-waits.js';
import type { PublishJobState } from './job-visibility.js';
import type { ProgressRecorder } from './progress-recorder.js';
import { ANSWERED_TOOL_CALLS_FEATURE, type ReleaseFeatures } from './release-features.js';

export interface ActivityEffectsOptions {
  input: AgentJobInput;
  state: JobState;
  progress: ProgressRecorder;
  publish: PublishJobState;
  isAborted: () => boolean;
  features: ReleaseFeatures;
  /** Counts the model calls and tool bodies under way (see `JobWaits`). */
  waits: JobWaits;
}

const { lookUpToolCallEnding } = proxyLocalActivities<AgentActivities>(storeLocalActivityOptions);

/**
 * How a lost attempt of a call ended, when it got as far as remembering it (its worker died, or
 * its completion was lost, after the body's output was stored); null for any other failure.
 */
async function lostAttemptEnding(
  error: unknown,
): Promise<ToolCallEnding<ExecuteToolWithStoreResult> | null> {
  if (!(error instanceof ActivityFailure) || !isLostAttempt(error) || !error.activityId) {
    return null;
  }
  try {
    return await lookUpToolCallEnding({
      runId: workflowInfo().runId,
      activityId: error.activityId,
    });
  } catch {
    // Not found out (the run was cancelled meanwhile, say): the call is reported interrupted.
    return null;
  }
}

/**
 * The core loop's effects in a workflow. The model call and every prepared tool body are
 * activities that read and write the job store: the model call gets the stored transcript's
 * pointer plus the few messages not stored yet, and returns the assistant message in its thin
 * form (tool calls, stop reason, usage, reference); a tool body's result content is stored and
 * comes back as a reference. Events go to the progress recorder.
 */
export function createActivityEffects(options: ActivityEffectsOptions): AgentLoopEffects {
  const { input, state, progress, publish, isAborted, features, waits } = options;
  const jobId = workflowInfo().workflowId;
  const models = modelCalls(input.model, features);
  const answeredToolCalls = features.has(ANSWERED_TOOL_CALLS_FEATURE);
  return {
    emit: (event) => progress.record(event),
    isAborted,
    now: () => Date.now(),
    takeSteeringMessages: () => state.steering.splice(0),
    takeFollowUpMessages: () => state.followUps.splice(0),
    async callModel(request) {
      state.phase = 'model';
      state.modelCalls += 1;
      publish(state.phase, state.modelCalls);
      progress.statusChanged();
      const makeModelCall = models.next();
      waits.activities += 1;
      try {
        // Large messages (follow-ups taken together) would pass the payload limit in the input.
        if (storeBeforeModelCall(unstoredMessages(state))) await progress.flush();
        await compactIfNeeded(input, state, progress, features);
        const answer = await makeModelCall({
          jobId,
          model: input.model,
          callIndex: modelCallsMade(state) - 1,
          // For the live stream's deltas only (activity inputs are not compared on replay).
          turn: state.modelCalls,
          systemPrompt: request.systemPrompt,
          tools: request.tools,
          transcript: { pointer: state.transcript, unstored: unstoredMessages(state) },
          ...(state.modelContext ? { context: state.modelContext } : {}),
        });
        if (answer.setupRef !== undefined) state.setupRef = answer.setupRef;
        state.usage = addUsage(state.usage, answer.message.usage);
        if (answer.contextWindow !== undefined) state.contextWindow = answer.contextWindow;
        countModelAnswer(state, answer.message, answer.estimatedContextTokens);
        // The loop appends the message next; the stored transcript already holds it.
        advanceTranscript(state, answer.transcript);
        return answer.message;
      } catch (error) {
        // R21: an aborted call; R2: a call that failed for good ends the run as an error.
        if (isCancellation(error)) return failedAssistantMessage('aborted', OPERATION_ABORTED);
        return failedAssistantMessage('error', failureMessage(error));
      } finally {
        waits.activities -= 1;
      }
    },
    async executeTool(call) {
      // `approval` stays while another call of the batch waits for a decision (R22).
      state.phase = toolsPhase(state);
      publish(state.phase, state.modelCalls);
      progress.statusChanged();
      const { executeToolWithStore } = proxyActivities<AgentActivities>(
        toolActivityOptions(call.tool),
      );
      // A tool that must not run twice: how its one attempt ended is remembered, for when the
      // attempt's completion is lost.
      const rememberEnding = answeredToolCalls && !isReplaySafe(call.tool);
      // Every stored result is entered, estimated or not: until the batch's result messages
      // are appended, this is where the job's state names it (`heldObjectsOf`).
      const tokensOf = ({ estimatedTokens, ...result }: ExecuteToolWithStoreResult) => {
        if (result.contentRef !== undefined) {
          state.storedResultTokens[result.contentRef] = estimatedTokens ?? 0;
        }
        return result;
      };
      waits.activities += 1;
      try {
        const answer = await executeToolWithStore({
          jobId,
          toolName: call.tool.name,
          toolCallId: call.toolCall.id,
          args: call.args,
          workspace: input.workspace,
          // Turn too: a model may reuse a call id in a later turn (R24).
          idempotencyKey: `${jobId}/${state.modelCalls}/${call.toolCall.id}`,
          turn: state.modelCalls,
          ...(rememberEnding ? { rememberEnding } : {}),
        });
        return tokensOf(answer);
      } catch (error) {
        const ending = rememberEnding ? await lostAttemptEnding(error) : null;
        if (ending && 'result' in ending) return tokensOf(ending.result);
        if (ending) throw new Error(ending.failure, { cause: error });
        throw new Error(toolFailureMessage(call.tool, error), { cause: error });
      } finally {
        waits.activities -= 1;
      }
    },
  };
}
