/**
 * How the loop waits for `emit` (R5: events in order, each emitted before the run goes on). A
 * synchronous emit (a workflow's) is not awaited unless `awaitEveryEmit` asks for the timing of
 * runs recorded before: the same events in the same order, with about half the promises. An
 * emit that returns a promise is awaited either way.
 */
import { promiseHooks } from 'node:v8';
import { runAgentLoop, type AgentEvent } from '../../src/core/index.js';
import { agentHarness, type Harness } from './support/harness.js';
import { assistant, text, toolCall, user } from './support/messages.js';
import { readTool } from './support/tools.js';

function twoToolTurns(toolExecution: 'parallel' | 'sequential' = 'parallel'): Harness {
  return agentHarness({
    tools: [readTool],
    toolExecution,
    answers: [
      assistant([
        toolCall('a', 'read', { path: 'a.txt' }),
        toolCall('b', 'read', { path: 'b.txt' }),
        toolCall('c', 'read', { path: 'c.txt' }),
      ]),
      assistant([toolCall('d', 'read', { path: 'd.txt' })]),
      assistant([text('done')]),
    ],
  });
}

/** Runs the harness's loop with `awaitEveryEmit`, counting the promises made meanwhile. */
async function runCounting(harness: Harness, awaitEveryEmit: boolean, syncToolSteps = false) {
  let promises = 0;
  const stop = promiseHooks.onInit(() => {
    promises += 1;
  });
  try {
    const outcome = await runAgentLoop(
      [user('read them')],
      harness.transcript,
      { systemPrompt: 'You are a test.', tools: [readTool] },
      harness.effects,
      { awaitEveryEmit, syncToolSteps },
    );
    return { outcome, promises };
  } finally {
    (stop as () => void)();
  }
}

test('R5: the same events and messages whether every emit is awaited or only promised ones', async () => {
  const everyHarness = twoToolTurns();
  const every = await runCounting(everyHarness, true);
  const settledHarness = twoToolTurns();
  const settled = await runCounting(settledHarness, false);

  expect(settledHarness.sink.labels()).toEqual(everyHarness.sink.labels());
  expect(settledHarness.sink.labels()).toHaveLength(32);
  expect(settled.outcome.newMessages).toEqual(every.outcome.newMessages);
  // A synchronous emit awaited costs a promise or more; not awaited, none.
  expect(settled.promises).toBeLessThan(every.promises * 0.7);
});

test('R5: an emit that returns a promise is awaited before the run goes on', async () => {
  // Sequential: parallel bodies end (and emit) independently of each other (R15).
  const harness = twoToolTurns('sequential');
  const order: string[] = [];
  let inFlight = 0;
  harness.effects.emit = async (event: AgentEvent) => {
    // Overlapping emits would mean the loop went on before the previous one settled.
    expect(inFlight).toBe(0);
    inFlight += 1;
    await new Promise((resolve) => setTimeout(resolve, 1));
    order.push(event.type);
    harness.sink.emit(event);
    inFlight -= 1;
  };
  const outcome = await harness.run();

  expect(outcome.stopReason).toBe('stop');
  expect(order).toHaveLength(32);
  expect(order.at(0)).toBe('agent_start');
  expect(order.at(-1)).toBe('agent_end');
  expect(harness.sink.events.map((event) => event.type)).toEqual(order);
});

test('R6-R17: tool calls whose steps make no promise each: the same events and messages, fewer promises', async () => {
  const stepwiseHarness = twoToolTurns();
  const stepwise = await runCounting(stepwiseHarness, false, false);
  const inPlaceHarness = twoToolTurns();
  const inPlace = await runCounting(inPlaceHarness, false, true);

  expect(inPlaceHarness.sink.labels()).toEqual(stepwiseHarness.sink.labels());
  expect(inPlace.outcome.newMessages).toEqual(stepwise.outcome.newMessages);
  // Four calls: preflight, decision and after-hook made about six promises each.
  expect(inPlace.promises).toBeLessThanOrEqual(stepwise.promises - 4 * 4);
});

test('R6-R17: sequential calls too: the same events and messages with fewer promises', async () => {
  const stepwiseHarness = twoToolTurns('sequential');
  const stepwise = await runCounting(stepwiseHarness, false, false);
  const inPlaceHarness = twoToolTurns('sequential');
  const inPlace = await runCounting(inPlaceHarness, false, true);

  expect(inPlaceHarness.sink.labels()).toEqual(stepwiseHarness.sink.labels());
  expect(inPlace.outcome.newMessages).toEqual(stepwise.outcome.newMessages);
  expect(inPlace.promises).toBeLessThan(stepwise.promises);
});
