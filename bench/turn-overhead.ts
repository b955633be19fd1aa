import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startJob } from '../src/client/job-client.js';
import { historyFacts } from './history.js';
import { median, percentile, ratio, round } from './statistics.js';
import { writeNoopScript } from './bench-environment.js';

export interface TurnOverheadCase {
  jobs: number;
  turns: number;
  callsPerTurn: number;
}

interface SideMeasure {
  medianTurnMs: number;
  p95TurnMs: number;
  turnsPerSecond: number;
}

async function measureRunner(
  environment: TestWorkflowEnvironment,
  taskQueue: string,
  scenario: TurnOverheadCase,
  folder: string,
  repetition: number,
): Promise<SideMeasure> {
  const script = writeNoopScript(folder, scenario.turns, scenario.callsPerTurn);
  const ids = Array.from(
    { length: scenario.jobs },
    (_, index) => `runner-${repetition}-${index}-${Date.now()}`,
  );
  const started = performance.now();
  const jobs = await Promise.all(
    ids.map((workflowId) =>
      startJob(
        environment.client,
        { prompt: 'go', model: `scripted:${script}`, workspace: folder, tools: ['noop'] },
        { taskQueue, workflowId },
      ),
    ),
  );
  await Promise.all(jobs.map((job) => job.handle.result()));
  const seconds = (performance.now() - started) / 1000;
  return summarize(environment, ids, 'callModel', scenario, seconds);
}

async function measureBare(
  environment: TestWorkflowEnvironment,
  taskQueue: string,
  scenario: TurnOverheadCase,
  repetition: number,
): Promise<SideMeasure> {
  const ids = Array.from(
    { length: scenario.jobs },
    (_, index) => `bare-${repetition}-${index}-${Date.now()}`,
  );
  const started = performance.now();
  await Promise.all(
    ids.map((workflowId) =>
      environment.client.workflow.execute('bareTurns', {
        taskQueue,
        workflowId,
        args: [scenario.turns, scenario.callsPerTurn],
      }),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  return summarize(environment, ids, 'bareModel', scenario, seconds);
}

async function summarize(
  environment: TestWorkflowEnvironment,
  ids: string[],
  modelActivity: string,
  scenario: TurnOverheadCase,
  seconds: number,
): Promise<SideMeasure> {
  const latencies: number[] = [];
  for (const id of ids) {
    latencies.push(...(await historyFacts(environment.client, id, modelActivity)).turnLatenciesMs);
  }
  return {
    medianTurnMs: median(latencies),
    p95TurnMs: percentile(latencies, 0.95),
    turnsPerSecond: (scenario.jobs * (scenario.turns + 1)) / seconds,
  };
}

function medianOf(measures: SideMeasure[]): SideMeasure {
  return {
    medianTurnMs: round(median(measures.map((measure) => measure.medianTurnMs))),
    p95TurnMs: round(median(measures.map((measure) => measure.p95TurnMs))),
    turnsPerSecond: round(median(measures.map((measure) => measure.turnsPerSecond))),
  };
}

/**
 * Turn overhead: the runner against a bare workflow calling the same activities in the same
 * pattern, alternating sides each repetition, same worker, same server. Per-turn latency is
 * read from the histories (model activity scheduled to the next one).
 */
export async function benchTurnOverhead(
  environment: TestWorkflowEnvironment,
  taskQueue: string,
  scenario: TurnOverheadCase,
  repetitions: number,
) {
  const folder = mkdtempSync(join(tmpdir(), 'dar-bench-'));
  const runner: SideMeasure[] = [];
  const bare: SideMeasure[] = [];
  for (let repetition = 0; repetition < repetitions; repetition += 1) {
    bare.push(await measureBare(environment, taskQueue, scenario, repetition));
    runner.push(await measureRunner(environment, taskQueue, scenario, folder, repetition));
  }
  const runnerMedian = medianOf(runner);
  const bareMedian = medianOf(bare);
  return {
    scenario,
    repetitions,
    runner: runnerMedian,
    bare: bareMedian,
    ratios: {
      medianTurn: ratio(runnerMedian.medianTurnMs, bareMedian.medianTurnMs),
      p95Turn: ratio(runnerMedian.p95TurnMs, bareMedian.p95TurnMs),
      throughput: ratio(runnerMedian.turnsPerSecond, bareMedian.turnsPerSecond),
    },
  };
}
