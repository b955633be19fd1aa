// `npm run bench:profile -- SIDE [--jobs N] [--turns N] [--calls N] [--repetitions N]
//   [--no-flush] [--cpu-profile FILE] [--database memory|file]`
// One side of a turn-overhead case alone (SIDE: runner, shaped or bare), to find where its CPU
// goes: two warm-up rounds, then the measured ones, and the CPU a turn of each thread group.
// `--cpu-profile FILE` writes V8's profile of the main thread over the measured rounds (V8
// samples by wall time: see bench/README.md on what that overstates). For `perf`, run the
// built script with `node --perf-basic-prof` and attach to the pid it prints.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createBenchWorker, openBenchStore, startBenchServer } from './bench-environment.js';
import { round } from './statistics.js';
import { cpuSince, markPoolThreads, threadCpu } from './thread-cpu.js';
import { cpuPerTurn, runSide, turnsOf, type Side } from './turn-overhead.js';

const SIDES: readonly Side[] = ['runner', 'shaped', 'bare'];
const WARM_UP_ROUNDS = 2;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    jobs: { type: 'string', default: '20' },
    turns: { type: 'string', default: '5' },
    calls: { type: 'string', default: '3' },
    repetitions: { type: 'string', default: '4' },
    'no-flush': { type: 'boolean', default: false },
    'cpu-profile': { type: 'string' },
    database: { type: 'string', default: 'memory' },
  },
});

/** Says what is wrong with the command line and exits (2, as `dar` does for usage errors). */
function refuse(problem: string): never {
  console.error(`bench:profile: ${problem}`);
  process.exit(2);
}

function wholeNumber(flag: string, text: string, minimum: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < minimum) {
    refuse(`--${flag} takes a whole number of at least ${minimum}, not "${text}"`);
  }
  return value;
}

const side = positionals[0] as Side | undefined;
if (side === undefined || !SIDES.includes(side) || positionals.length > 1) {
  refuse(`give one side to profile: ${SIDES.join(', ')}`);
}
if (values.database !== 'memory' && values.database !== 'file') {
  refuse(`--database is memory or file, not "${values.database}"`);
}
const scenario = {
  jobs: wholeNumber('jobs', values.jobs, 1),
  turns: wholeNumber('turns', values.turns, 0),
  callsPerTurn: wholeNumber('calls', values.calls, 0),
};
const repetitions = wholeNumber('repetitions', values.repetitions, 1);

console.log(`pid ${process.pid}: ${side}, ${JSON.stringify(scenario)} x ${repetitions}`);
const environment = await startBenchServer(values.database);
const taskQueue = `profile-${Date.now()}`;
const store = await openBenchStore(!values['no-flush']);
markPoolThreads();
const worker = await createBenchWorker(environment, taskQueue, store);
const folder = mkdtempSync(join(tmpdir(), 'dar-profile-'));
const profilePath = values['cpu-profile'];
const profiler = profilePath === undefined ? undefined : new Session();

try {
  await worker.runUntil(async () => {
    for (let warmUp = 0; warmUp < WARM_UP_ROUNDS; warmUp += 1) {
      await runSide(environment, taskQueue, side, scenario, folder, `warm-${warmUp}`);
    }
    if (profiler) {
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.start');
    }
    const before = threadCpu();
    const started = performance.now();
    for (let repetition = 0; repetition < repetitions; repetition += 1) {
      await runSide(environment, taskQueue, side, scenario, folder, String(repetition));
    }
    const seconds = (performance.now() - started) / 1000;
    const cpu = cpuSince(before, threadCpu());
    if (profiler && profilePath !== undefined) {
      const { profile } = await profiler.post('Profiler.stop');
      writeFileSync(profilePath, JSON.stringify(profile));
      console.log(`V8 profile of the main thread: ${profilePath}`);
    }
    const turns = repetitions * turnsOf(scenario);
    console.log(`${turns} turns in ${seconds.toFixed(2)} s (${round(turns / seconds)} a second)`);
    console.log(JSON.stringify(cpuPerTurn(cpu, turns)));
  });
} finally {
  profiler?.disconnect();
  await environment.teardown();
  await store.close();
  // A profiling session runs this again and again: its jobs' files do not pile up.
  rmSync(folder, { recursive: true, force: true });
  rmSync(store.folder, { recursive: true, force: true });
}
