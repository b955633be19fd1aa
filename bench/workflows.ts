import {
  condition,
  defineSignal,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { builtinToolSpecs } from '../src/tools/specs/index.js';
import { makeAgentWorkflow } from '../src/workflows/agent-workflow.js';
import {
  modelActivityOptions,
  storeLocalActivityOptions,
  toolActivityOptions,
} from '../src/workflows/activity-options.js';
import { darPhaseKey, darTurnsKey } from '../src/workflows/search-attributes.js';
import type * as bareActivities from './bare-activities.js';
import { noopToolSpec } from './noop-tool.js';

/** The runner's workflow with the no-op tool. */
export const agentJob = makeAgentWorkflow({ ...builtinToolSpecs, noop: noopToolSpec });

const { bareModel, bareNoop } = proxyActivities<typeof bareActivities>({
  startToCloseTimeout: '1 minute',
});

/** The baseline: the same pattern of activities with no agent logic around them. */
export async function bareTurns(turns: number, callsPerTurn: number): Promise<number> {
  let calls = 0;
  for (let turn = 0; turn < turns; turn += 1) {
    const answer = await bareModel(turn, callsPerTurn);
    await Promise.all(answer.map((index) => bareNoop(index)));
    calls += answer.length;
  }
  await bareModel(turns, 0);
  return calls;
}

/**
 * Payload sizes of the runner's activities in the 200-job case (characters of JSON, read from
 * its histories): a model call's input and answer, a tool call's input and result, and the
 * final durable write's marker.
 */
const RUNNER_PAYLOAD_CHARACTERS = {
  modelInput: 800,
  modelAnswer: 700,
  toolInput: 250,
  toolResult: 150,
  finalWrite: 300,
} as const;

const shapedModelCall = proxyActivities<typeof bareActivities>(modelActivityOptions);
const shapedToolCall = proxyActivities<typeof bareActivities>(toolActivityOptions(noopToolSpec));
const shapedFinalWrite = proxyLocalActivities<typeof bareActivities>(storeLocalActivityOptions);

/**
 * The bare workflow shaped like a runner's job in Temporal, with no agent logic: a release
 * patch (its marker and the `TemporalChangeVersion` upsert Temporal's core adds), the runner's
 * activity options (heartbeat timeouts, retry policies, cancellation type), payloads of the
 * runner's sizes, the end's `DarPhase`/`DarTurns` upsert and a final local activity (the
 * runner's last durable write). Its client starts it with the start attributes a job gets. What
 * it costs over `bareTurns` is what Temporal charges for the runner's shape; what the runner
 * costs over it is the runner's own work (store, events, loop).
 */
export async function shapedTurns(turns: number, callsPerTurn: number): Promise<number> {
  const sizes = RUNNER_PAYLOAD_CHARACTERS;
  patched('bench-shaped-release');
  let calls = 0;
  for (let turn = 0; turn < turns; turn += 1) {
    const answer = await shapedModelCall.shapedModel(
      turn,
      callsPerTurn,
      'x'.repeat(sizes.modelInput),
      sizes.modelAnswer,
    );
    await Promise.all(
      answer.calls.map((index) =>
        shapedToolCall.shapedNoop(index, 'x'.repeat(sizes.toolInput), sizes.toolResult),
      ),
    );
    calls += answer.calls.length;
  }
  await shapedModelCall.shapedModel(turns, 0, 'x'.repeat(sizes.modelInput), sizes.modelAnswer);
  upsertSearchAttributes([
    { key: darPhaseKey, value: 'done' },
    { key: darTurnsKey, value: turns + 1 },
  ]);
  await shapedFinalWrite.shapedNoop(0, 'x'.repeat(sizes.finalWrite), sizes.finalWrite);
  return calls;
}

/** The baseline for memory: a workflow waiting for a signal. */
const followUpSignal = defineSignal('followUp');

export async function bareWaiting(): Promise<void> {
  let arrived = false;
  setHandler(followUpSignal, () => {
    arrived = true;
  });
  await condition(() => arrived);
}
