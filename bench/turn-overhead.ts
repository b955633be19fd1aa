import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startJob } from '../src/client/job-client.js';
import { takeActivityTimes, type ActivityTime } from './activity-timing.js';
import { historyFacts, type HistoryFacts } from './history.js';
import { median, percentile, ratio, round } from './statistics.js';
import { benchServerMetricsUrl, writeNoopScript, type BenchServer } from './bench-environment.js';
import { countersPerTurn, readServerCounters, type ServerCounters } from './server-metrics.js';
import { cpuSince, threadCpu, type CpuByGroup } from './thread-cpu.js';
import { MODEL_CALL_ACTIVITIES } from '../src/workflows/model-call-activities.js';
import { startSearchAttributes } from '../src/workflows/search-attributes.js';

export interface TurnOverheadCase {
  jobs: number;
  turns: number;
  callsPerTurn: number;
}

interface SideMeasure {
  medianTurnMs: number;
  p95TurnMs: number;
  turnsPerSecond: number;
  /** Where a turn's time goes: per-turn counts and milliseconds (see `profileOf`). */
  profile: Record<string, number>;
  /** What the server did per turn: requests and persistence operations (`server-metrics.ts`). */
  server: Record<string, number>;
}

/** The turns a case's jobs make: each of its tool turns, and the final answer's. */
export function turnsOf(scenario: TurnOverheadCase): number {
  return scenario.jobs * (scenario.turns + 1);
}

/** A side of the comparison: the runner, or a baseline workflow (`bench/workflows.ts`). */
export type Side = 'runner' | 'bare' | 'shaped';

const BASELINE_WORKFLOWS: Record<
  Exclude<Side, 'runner'>,
  { workflowType: string; modelActivity: string }
> = {
  bare: { workflowType: 'bareTurns', modelActivity: 'bareModel' },
  shaped: { workflowType: 'shapedTurns', modelActivity: 'shapedModel' },
};

/** The activities whose start begins a turn of `side` (see `historyFacts`). */
function modelActivitiesOf(side: Side): ReadonlySet<string> {
  return side === 'runner'
    ? MODEL_CALL_ACTIVITIES
    : new Set([BASELINE_WORKFLOWS[side].modelActivity]);
}

/**
 * Starts `scenario.jobs` jobs of `side` at once and waits for all of them to finish; returns
 * their workflow ids (`tag` makes them unique). The runner's jobs run a model script of no-op
 * tool calls in `folder`; the baselines call the same activities in the same pattern.
 */
export async function runSide(
  environment: BenchServer,
  taskQueue: string,
  side: Side,
  scenario: TurnOverheadCase,
  folder: string,
  tag: string,
): Promise<string[]> {
  const ids = Array.from(
    { length: scenario.jobs },
    (_, index) => `${side}-${tag}-${index}-${Date.now()}`,
  );
  if (side === 'runner') {
    const script = writeNoopScript(folder, scenario.turns, scenario.callsPerTurn);
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
    return ids;
  }
  const { workflowType } = BASELINE_WORKFLOWS[side];
  await Promise.all(
    ids.map((workflowId) =>
      environment.client.workflow.execute(workflowType, {
        taskQueue,
        workflowId,
        args: [scenario.turns, scenario.callsPerTurn],
        // The attributes a job's client starts it with (`startJob`).
        ...(side === 'shaped' ? { typedSearchAttributes: startSearchAttributes() } : {}),
      }),
    ),
  );
  return ids;
}

async function measureSide(
  environment: BenchServer,
  taskQueue: string,
  side: Side,
  scenario: TurnOverheadCase,
  folder: string,
  repetition: number,
): Promise<SideMeasure> {
  takeActivityTimes();
  const countersBefore = await settledServerCounters();
  const cpuBefore = threadCpu();
  const started = performance.now();
  const ids = await runSide(environment, taskQueue, side, scenario, folder, String(repetition));
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpuSince(cpuBefore, threadCpu());
  const counters = await settledServerCounters();
  const measured = { seconds, cpu, countersBefore, counters };
  return summarize(environment, ids, modelActivitiesOf(side), scenario, measured);
}

/** The server publishes its counters about once a second: wait that out before reading. */
const COUNTER_SETTLE_MS = 2500;

async function settledServerCounters(): Promise<ServerCounters> {
  await new Promise((resolve) => setTimeout(resolve, COUNTER_SETTLE_MS));
  return readServerCounters(benchServerMetricsUrl);
}

/** A side's run: its wall time, CPU by thread, and the server's counters around it. */
interface Measured {
  seconds: number;
  cpu: CpuByGroup;
  countersBefore: ServerCounters;
  counters: ServerCounters;
}

async function summarize(
  environment: BenchServer,
  ids: string[],
  modelActivities: ReadonlySet<string>,
  scenario: TurnOverheadCase,
  measured: Measured,
): Promise<SideMeasure> {
  const { seconds, cpu } = measured;
  const activityTimes = takeActivityTimes();
  const latencies: number[] = [];
  const facts: HistoryFacts[] = [];
  for (const id of ids) {
    const fact = await historyFacts(environment.client, id, modelActivities);
    facts.push(fact);
    latencies.push(...fact.turnLatenciesMs);
  }
  const turns = turnsOf(scenario);
  return {
    medianTurnMs: median(latencies),
    p95TurnMs: percentile(latencies, 0.95),
    turnsPerSecond: turns / seconds,
    profile: { ...profileOf(facts, activityTimes, turns), ...cpuPerTurn(cpu, turns) },
    server: countersPerTurn(measured.countersBefore, measured.counters, turns),
  };
}

/**
 * Per turn: history events, markers (local activities), workflow tasks and their time on the
 * worker (`workflowTaskMs`: picked up to completed) and end to end (`workflowTaskWallMs`:
 * scheduled to completed); per activity, calls per turn and milliseconds per call.
 */
function profileOf(
  facts: HistoryFacts[],
  activityTimes: Map<string, ActivityTime>,
  turns: number,
): Record<string, number> {
  const sum = (pick: (fact: HistoryFacts) => number) =>
    facts.reduce((total, fact) => total + pick(fact), 0);
  const profile: Record<string, number> = {
    eventsPerTurn: round(sum((fact) => fact.events) / turns),
    markersPerTurn: round(sum((fact) => fact.markers) / turns),
    workflowTasksPerTurn: round(sum((fact) => fact.workflowTasks) / turns),
    workflowTaskMsPerTurn: round(sum((fact) => fact.workflowTaskMs) / turns),
    workflowTaskWallMsPerTurn: round(sum((fact) => fact.workflowTaskWallMs) / turns),
  };
  for (const [name, time] of activityTimes) {
    profile[`${name}CallsPerTurn`] = round(time.calls / turns);
    profile[`${name}MsPerCall`] = round(time.totalMs / time.calls);
  }
  return profile;
}

/**
 * CPU milliseconds per turn of each thread group (see `threadCpu`), named `cpuMsPerTurn.<group>`:
 * where the runner's extra cost lands (the workflow thread, the event loop, the server).
 */
export function cpuPerTurn(cpu: CpuByGroup, turns: number): Record<string, number> {
  const total = Object.values(cpu).reduce((sum, ms) => sum + ms, 0);
  return Object.fromEntries([
    ...Object.entries(cpu).map(([group, ms]): [string, number] => [
      `cpuMsPerTurn.${group}`,
      round(ms / turns),
    ]),
    ['cpuMsPerTurn.total', round(total / turns)],
  ]);
}

/** The mean of each figure over the repetitions (a figure missing from one counts as 0). */
function meanOf(figures: Record<string, number>[]): Record<string, number> {
  const names = new Set(figures.flatMap((figure) => Object.keys(figure)));
  return Object.fromEntries(
    [...names].map((name) => [
      name,
      round(figures.reduce((total, figure) => total + (figure[name] ?? 0), 0) / figures.length),
    ]),
  );
}

function medianOf(measures: SideMeasure[]): SideMeasure {
  return {
    medianTurnMs: round(median(measures.map((measure) => measure.medianTurnMs))),
    p95TurnMs: round(median(measures.map((measure) => measure.p95TurnMs))),
    turnsPerSecond: round(median(measures.map((measure) => measure.turnsPerSecond))),
    profile: meanOf(measures.map((measure) => measure.profile)),
    server: meanOf(measures.map((measure) => measure.server)),
  };
}

/** `runner` over `baseline`: the ratios of their medians, and the range of each repetition's. */
function comparison(runner: SideMeasure[], baseline: SideMeasure[]) {
  const runnerMedian = medianOf(runner);
  const baselineMedian = medianOf(baseline);
  // Each repetition's pair on its own: how far one run's ratios stray from the medians'.
  const spread = (value: (side: SideMeasure) => number) => {
    const ratios = runner.map((side, index) => value(side) / value(baseline[index] as SideMeasure));
    return `${Math.min(...ratios).toFixed(2)}x-${Math.max(...ratios).toFixed(2)}x`;
  };
  return {
    ratios: {
      medianTurn: ratio(runnerMedian.medianTurnMs, baselineMedian.medianTurnMs),
      p95Turn: ratio(runnerMedian.p95TurnMs, baselineMedian.p95TurnMs),
      throughput: ratio(runnerMedian.turnsPerSecond, baselineMedian.turnsPerSecond),
    },
    ratiosByRepetition: {
      medianTurn: spread((side) => side.medianTurnMs),
      throughput: spread((side) => side.turnsPerSecond),
    },
  };
}

/**
 * Turn overhead: the runner against a bare workflow calling the same activities in the same
 * pattern, and against that workflow shaped like a runner's job in Temporal (`shapedTurns`:
 * what Temporal charges for the runner's patch, options, payloads, upsert and last local
 * activity), each repetition in turn, same worker, same server. Per-turn latency is read from
 * the histories (model activity scheduled to the next one).
 */
export async function benchTurnOverhead(
  environment: BenchServer,
  taskQueue: string,
  scenario: TurnOverheadCase,
  repetitions: number,
) {
  const folder = mkdtempSync(join(tmpdir(), 'dar-bench-'));
  const runner: SideMeasure[] = [];
  const bare: SideMeasure[] = [];
  const shaped: SideMeasure[] = [];
  const measure = (side: Side, repetition: number) =>
    measureSide(environment, taskQueue, side, scenario, folder, repetition);
  for (let repetition = 0; repetition < repetitions; repetition += 1) {
    // Reverse the order every other repetition: the server's in-memory database only grows.
    const order =
      repetition % 2 === 0
        ? (['bare', 'shaped', 'runner'] as const)
        : (['runner', 'shaped', 'bare'] as const);
    for (const side of order) {
      ({ runner, bare, shaped })[side].push(await measure(side, repetition));
    }
  }
  const overBare = comparison(runner, bare);
  return {
    scenario,
    repetitions,
    runner: medianOf(runner),
    bare: medianOf(bare),
    shaped: medianOf(shaped),
    ratios: overBare.ratios,
    ratiosByRepetition: overBare.ratiosByRepetition,
    // The runner's own work, over Temporal's charge for its shape; and that charge.
    runnerOverShaped: comparison(runner, shaped).ratios,
    shapedOverBare: comparison(shaped, bare).ratios,
  };
}
