import {
  ActivityFailure,
  ApplicationFailure,
  proxyActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { AgentActivities, CallModelWithStoreInput } from '../activities/index.js';
import { modelActivityOptions } from './activity-options.js';
import { MODEL_TASK_QUEUE_PATCH, modelTaskQueue } from './model-task-queue.js';
import {
  FIRST_MODEL_CALL_UNLESS_PACED_FEATURE,
  UNPACED_MODEL_CALLS_FEATURE,
  type ReleaseFeatures,
} from './release-features.js';

type CallModel = AgentActivities['callModelWithStore'];
type CallModelUnlessPaced = AgentActivities['callModelUnlessPaced'];

/** The answer of a model call the workflow made. */
export type ModelCallResult = Awaited<ReturnType<CallModel>>;

/** Where a run's next model call goes, as far as the run knows its workers' pacing. */
type Pacing = 'unknown' | 'paced' | 'unpaced';

interface ModelQueues {
  /** On the provider's task queue (or, before that patch, the job's). */
  paced: CallModel;
  /** On the job's own task queue. */
  unpaced: CallModel;
  /** Whether the calls follow what each answer says of its worker's pacing (`2026-12d`). */
  followsPacing: boolean;
  /** A first call that the worker makes only when it does not pace the provider (`2026-12e`). */
  unlessPaced: CallModelUnlessPaced | undefined;
}

/** Raised on a worker of an earlier release, which does not have `callModelUnlessPaced`. */
function isUnknownActivity(error: unknown): boolean {
  return (
    error instanceof ActivityFailure &&
    error.cause instanceof ApplicationFailure &&
    error.cause.type === 'NotFoundError'
  );
}

function modelQueues(model: string, features: ReleaseFeatures): ModelQueues {
  if (!features.has(MODEL_TASK_QUEUE_PATCH)) {
    const { callModelWithStore } = proxyActivities<AgentActivities>(modelActivityOptions);
    return {
      paced: callModelWithStore,
      unpaced: callModelWithStore,
      followsPacing: false,
      unlessPaced: undefined,
    };
  }
  const jobQueue = workflowInfo().taskQueue;
  const onJobQueue = proxyActivities<AgentActivities>({
    ...modelActivityOptions,
    taskQueue: jobQueue,
  });
  const unlessPaced = features.has(FIRST_MODEL_CALL_UNLESS_PACED_FEATURE)
    ? proxyActivities<AgentActivities>({
        ...modelActivityOptions,
        taskQueue: jobQueue,
        retry: {
          ...modelActivityOptions.retry,
          // A worker of an earlier release: the call goes to the provider's queue at once.
          nonRetryableErrorTypes: [
            ...(modelActivityOptions.retry?.nonRetryableErrorTypes ?? []),
            'NotFoundError',
          ],
        },
      }).callModelUnlessPaced
    : undefined;
  return {
    paced: proxyActivities<AgentActivities>({
      ...modelActivityOptions,
      taskQueue: modelTaskQueue(jobQueue, model),
    }).callModelWithStore,
    unpaced: onJobQueue.callModelWithStore,
    followsPacing: features.has(UNPACED_MODEL_CALLS_FEATURE),
    unlessPaced,
  };
}

/**
 * The model calls of a run. On its provider's task queue, where the workers pace the calls of
 * every job (rate, concurrency); on the job's own queue in histories recorded before that. From
 * release `2026-12d`, each answer says whether its worker paces the provider, and the run's next
 * calls follow it: a paced provider's stay on its queue, an unpaced one's go on the job's queue,
 * where the call starts in the answer to the workflow task that schedules it instead of a round
 * of the provider's queue. Until an answer has said it, a run's first call went to the provider's
 * queue; from release `2026-12e` it goes on the job's queue as `callModelUnlessPaced`, which a
 * worker that paces the provider answers without calling (then the call goes to the provider's
 * queue): an unpaced job never waits in the provider's queue, a paced one pays one short
 * activity a run.
 */
export function modelCalls(model: string, features: ReleaseFeatures) {
  let queues: ModelQueues | undefined;
  let pacing: Pacing = 'unknown';

  function heard(answerPaced: boolean | undefined): void {
    // Absent: a worker of an earlier release, which treats every provider as paced.
    if (queues?.followsPacing) pacing = answerPaced === false ? 'unpaced' : 'paced';
  }

  async function firstUnlessPaced(
    unlessPaced: CallModelUnlessPaced,
    paced: CallModel,
    input: CallModelWithStoreInput,
  ): Promise<ModelCallResult> {
    try {
      const answer = await unlessPaced(input);
      if (!('notCalled' in answer)) return answer;
    } catch (error) {
      if (!isUnknownActivity(error)) throw error;
    }
    pacing = 'paced';
    return paced(input);
  }

  return {
    /**
     * The next call of the run. Chosen when the call is about to be made (the patch of the
     * provider's queue was always asked here: histories record it at this point), and made by
     * the returned function.
     */
    next(): (input: CallModelWithStoreInput) => Promise<ModelCallResult> {
      const chosen = (queues ??= modelQueues(model, features));
      return async (input) => {
        let answer: ModelCallResult;
        if (pacing === 'unpaced') answer = await chosen.unpaced(input);
        else if (pacing === 'unknown' && chosen.unlessPaced) {
          answer = await firstUnlessPaced(chosen.unlessPaced, chosen.paced, input);
        } else answer = await chosen.paced(input);
        heard(answer.providerPaced);
        return answer;
      };
    },
  };
}
