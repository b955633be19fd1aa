import { isCancellation, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { AgentActivities } from '../../activities/index.js';
import {
  OPERATION_ABORTED,
  modelRequestSizeError,
  type AgentLoopEffects,
} from '../../core/index.js';
import { modelActivityOptions, toolActivityOptions } from '../activity-options.js';
import type { EventLog } from './event-log.js';
import { failedAssistantMessage } from '../failed-assistant-message.js';
import { failureMessage } from '../failure-message.js';
import { toolFailureMessage } from '../tool-failure-message.js';
import type { JobState } from './job-state.js';
import type { LegacyJobInput as AgentJobInput } from './job-types.js';
import type { PublishJobState } from '../job-visibility.js';

const { callModel } = proxyActivities<AgentActivities>(modelActivityOptions);

export interface ActivityEffectsOptions {
  input: AgentJobInput;
  state: JobState;
  log: EventLog;
  publish: PublishJobState;
  isAborted: () => boolean;
}

/**
 * The core loop's effects in a workflow: the model call and every prepared tool body are
 * activities; events go to the job's log; the queues are the state's, fed by signals.
 */
export function createActivityEffects(options: ActivityEffectsOptions): AgentLoopEffects {
  const { input, state, log, publish, isAborted } = options;
  return {
    emit: (event) => log.append(event),
    isAborted,
    now: () => Date.now(),
    takeSteeringMessages: () => state.steering.splice(0),
    takeFollowUpMessages: () => state.followUps.splice(0),
    async callModel(request) {
      const tooLarge = modelRequestSizeError(request); // Temporal would refuse it (limits.ts)
      if (tooLarge !== undefined) return failedAssistantMessage('error', tooLarge);
      state.phase = 'model';
      state.modelCalls += 1;
      publish(state.phase, state.modelCalls);
      try {
        return await callModel({ model: input.model, request });
      } catch (error) {
        // R21: an aborted call; R2: a call that failed for good ends the run as an error.
        if (isCancellation(error)) return failedAssistantMessage('aborted', OPERATION_ABORTED);
        return failedAssistantMessage('error', failureMessage(error));
      }
    },
    async executeTool(call) {
      state.phase = 'tools';
      publish(state.phase, state.modelCalls);
      const { executeTool } = proxyActivities<AgentActivities>(toolActivityOptions(call.tool));
      try {
        return await executeTool({
          toolName: call.tool.name,
          toolCallId: call.toolCall.id,
          args: call.args,
          workspace: input.workspace,
          // Turn too: a model may reuse a call id in a later turn (R24).
          idempotencyKey: `${workflowInfo().workflowId}/${state.modelCalls}/${call.toolCall.id}`,
        });
      } catch (error) {
        throw new Error(toolFailureMessage(call.tool, error), { cause: error });
      }
    },
  };
}
