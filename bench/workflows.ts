import { condition, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import { builtinToolSpecs } from '../src/tools/specs/index.js';
import { makeAgentWorkflow } from '../src/workflows/agent-workflow.js';
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

/** The baseline for memory: a workflow waiting for a signal. */
const followUpSignal = defineSignal('followUp');

export async function bareWaiting(): Promise<void> {
  let arrived = false;
  setHandler(followUpSignal, () => {
    arrived = true;
  });
  await condition(() => arrived);
}
