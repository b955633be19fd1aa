import {
  ActivityFailure,
  ApplicationFailure,
  proxyActivities,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { AgentActivities, CallModelWithStoreInput } from '../activities/index.js';
import type { ToolDescriptor } from '../core/index.js';
import { sameToolDescriptors } from '../core/tool-spec.js';
import type { ObjectRef } from '../store/references.js';
import { modelActivityOptions } from './activity-options.js';
import { MODEL_TASK_QUEUE_PATCH, modelTaskQueue } from './model-task-queue.js';
import {
  FIRST_MODEL_CALL_UNLESS_PACED_FEATURE,
  SETUP_COMPARED_BY_VALUE_FEATURE,
  UNPACED_MODEL_CALLS_FEATURE,
  type ReleaseFeatures,
} from './release-features.js';

type CallModel = AgentActivities['callModelWithStore'];
type CallModelUnlessPaced = AgentActivities['callModelUnlessPaced'];
type CallModelOnStoredSetup = AgentActivities['callModelOnStoredSetup'];

/** The answer of a model call the workflow made. */
export type ModelCallResult = Awaited<ReturnType<CallModel>>;

/** Where a run's next model call goes, as far as the run knows its workers' pacing. */
type Pacing = 'unknown' | 'paced' | 'unpaced';

interface ModelQueues {
  /** On the provider's task queue (or, before that patch, the job's). */
  paced: CallModel;
  /** On the job's own task queue. */
  unpaced: CallModel;
  /** `paced` and `unpaced` with the setup by reference. */
  pacedOnSetup: CallModelOnStoredSetup;
  unpacedOnSetup: CallModelOnStoredSetup;
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

/**
 * The options of an activity that a worker of an earlier release does not have: "not
 * registered" is final at once (the workflow then makes the call the earlier way).
 */
function newerActivityOptions(taskQueue?: string): ActivityOptions {
  return {
    ...modelActivityOptions,
    ...(taskQueue === undefined ? {} : { taskQueue }),
    retry: {
      ...modelActivityOptions.retry,
      nonRetryableErrorTypes: [
        ...(modelActivityOptions.retry?.nonRetryableErrorTypes ?? []),
        'NotFoundError',
      ],
    },
  };
}

function modelQueues(model: string, features: ReleaseFeatures): ModelQueues {
  if (!features.has(MODEL_TASK_QUEUE_PATCH)) {
    const { callModelWithStore } = proxyActivities<AgentActivities>(modelActivityOptions);
    const { callModelOnStoredSetup } = proxyActivities<AgentActivities>(newerActivityOptions());
    return {
      paced: callModelWithStore,
      unpaced: callModelWithStore,
      pacedOnSetup: callModelOnStoredSetup,
      unpacedOnSetup: callModelOnStoredSetup,
      followsPacing: false,
      unlessPaced: undefined,
    };
  }
  const jobQueue = workflowInfo().taskQueue;
  const providerQueue = modelTaskQueue(jobQueue, model);
  const newerOnJobQueue = proxyActivities<AgentActivities>(newerActivityOptions(jobQueue));
  return {
    paced: proxyActivities<AgentActivities>({ ...modelActivityOptions, taskQueue: providerQueue })
      .callModelWithStore,
    unpaced: proxyActivities<AgentActivities>({ ...modelActivityOptions, taskQueue: jobQueue })
      .callModelWithStore,
    pacedOnSetup: proxyActivities<AgentActivities>(newerActivityOptions(providerQueue))
      .callModelOnStoredSetup,
    unpacedOnSetup: newerOnJobQueue.callModelOnStoredSetup,
    followsPacing: features.has(UNPACED_MODEL_CALLS_FEATURE),
    // A worker of an earlier release: the call goes to the provider's queue at once.
    unlessPaced: features.has(FIRST_MODEL_CALL_UNLESS_PACED_FEATURE)
      ? newerOnJobQueue.callModelUnlessPaced
      : undefined,
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
 *
 * A setup (system prompt and tools) large enough to be worth storing is stored by the call
 * that first sends it, whose answer names it (`setupRef`); the run's later calls with the same
 * setup send the reference through `callModelOnStoredSetup`, so history holds the setup once a
 * run instead of once a call. From release `2026-12f` the setup is recognised by value, so a
 * kept-open job's next agent run (whose loop builds new tool descriptors) sends the reference
 * too; runs of earlier releases compared the objects and replay as recorded. Decided by the
 * answers and the calls' inputs alone (both deterministic), so replay makes the same calls;
 * histories whose answers never named a setup replay as recorded.
 */
export function modelCalls(model: string, features: ReleaseFeatures) {
  let queues: ModelQueues | undefined;
  let pacing: Pacing = 'unknown';
  /** The setup an answer of this run said is stored, as the calls sent it. */
  let storedSetup:
    { systemPrompt: string; tools: readonly ToolDescriptor[]; ref: ObjectRef } | undefined;
  /** A worker of an earlier release did not know `callModelOnStoredSetup`: by value from then. */
  let setupByValueOnly = false;
  const setupComparedByValue = features.has(SETUP_COMPARED_BY_VALUE_FEATURE);

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

  /** The stored setup's reference when `input` has that setup, else none. */
  function storedSetupOf(input: CallModelWithStoreInput): ObjectRef | undefined {
    if (setupByValueOnly || storedSetup === undefined) return undefined;
    if (storedSetup.systemPrompt !== input.systemPrompt) return undefined;
    if (storedSetup.tools === input.tools) return storedSetup.ref;
    // Runs of earlier releases knew the setup only as the same objects.
    if (!setupComparedByValue || !sameToolDescriptors(storedSetup.tools, input.tools)) {
      return undefined;
    }
    // The same tools in new objects (a new agent run): its later calls match at once.
    storedSetup.tools = input.tools;
    return storedSetup.ref;
  }

  /** A call on one queue: by reference when its setup is stored (no extra promise when not). */
  function onQueue(
    byValue: CallModel,
    onSetup: CallModelOnStoredSetup,
    input: CallModelWithStoreInput,
  ): Promise<ModelCallResult> {
    const setupRef = storedSetupOf(input);
    if (setupRef === undefined) return byValue(input);
    return onStoredSetup(byValue, onSetup, input, setupRef);
  }

  async function onStoredSetup(
    byValue: CallModel,
    onSetup: CallModelOnStoredSetup,
    input: CallModelWithStoreInput,
    setupRef: ObjectRef,
  ): Promise<ModelCallResult> {
    const { systemPrompt, tools, ...call } = input;
    try {
      return await onSetup({ ...call, setupRef });
    } catch (error) {
      if (!isUnknownActivity(error)) throw error;
      setupByValueOnly = true;
      return byValue({ ...call, systemPrompt, tools });
    }
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
        if (pacing === 'unpaced') {
          answer = await onQueue(chosen.unpaced, chosen.unpacedOnSetup, input);
        } else if (pacing === 'unknown' && chosen.unlessPaced) {
          answer = await firstUnlessPaced(chosen.unlessPaced, chosen.paced, input);
        } else answer = await onQueue(chosen.paced, chosen.pacedOnSetup, input);
        heard(answer.providerPaced);
        if (answer.setupRef !== undefined) {
          storedSetup = {
            systemPrompt: input.systemPrompt,
            tools: input.tools,
            ref: answer.setupRef,
          };
        }
        return answer;
      };
    },
  };
}
