// `npm run bench`: every benchmark, both sides measured in this run against the same dev server.
// `npm run bench -- --quick` runs smaller sizes (a smoke run, not for the table).
// `npm run bench -- --only rate-pacing[,turn-overhead,...]` runs the named benchmarks alone.
// `turn-overhead` runs its cases on an in-memory dev server, `turn-overhead-file` on one that
// keeps its database in a file, as `dar`'s embedded server does, `turn-overhead-cluster` on a
// Temporal cluster on PostgreSQL with the job store there too (scripts/cluster/cluster.mjs).
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem, platform, release } from 'node:os';
import { fileURLToPath } from 'node:url';
import {
  createBenchWorker,
  openBenchStore,
  startBenchCluster,
  startBenchServer,
  type BenchDatabase,
  type BenchServer,
} from './bench-environment.js';
import { benchCliStartup } from './cli-startup.js';
import { buildClusterServer } from './cluster-build.js';
import { benchHistoryGrowth } from './history-growth.js';
import { benchLongJob } from './long-job.js';
import { benchPrune } from './prune.js';
import { benchRatePacing } from './rate-pacing.js';
import { benchStreaming } from './streaming.js';
import { devServerSinglePartitionArgs } from '../src/server/dev-server-command.js';
import { startDevServer } from '../test/support/temporal-server.js';
import { benchTurnOverhead } from './turn-overhead.js';
import { markPoolThreads } from './thread-cpu.js';
import { benchValidation } from './validation-throughput.js';
import { benchWorkerMemory } from './worker-memory.js';

const BENCHMARKS = [
  'validation',
  'turn-overhead',
  'turn-overhead-file',
  'turn-overhead-cluster',
  'history-growth',
  'long-job',
  'worker-memory',
  'rate-pacing',
  'cli-startup',
  'streaming',
  'prune',
] as const;
type Benchmark = (typeof BENCHMARKS)[number];

/** How the turn-overhead sections name their server (declared before the first run uses it). */
const SERVER_LABELS: Record<BenchDatabase, string> = {
  memory: 'dev server, database in memory',
  file: 'dev server, database in a file',
  cluster: 'cluster on PostgreSQL, store there too',
};

const quick = process.argv.includes('--quick');
/** `--repetitions N` (default 3, 1 with `--quick`): each turn-overhead side runs N times. */
function repetitionsAsked(): number {
  const index = process.argv.indexOf('--repetitions');
  if (index < 0) return quick ? 1 : 3;
  const count = Number(process.argv[index + 1]);
  if (!Number.isInteger(count) || count < 1) {
    console.error(
      `--repetitions takes a whole number of at least 1, not "${process.argv[index + 1] ?? ''}"`,
    );
    process.exit(2);
  }
  return count;
}
const repetitions = repetitionsAsked();

/** The benchmarks `--only a,b` names (every one without it); an unknown name stops the run. */
function selectedBenchmarks(): Set<Benchmark> {
  const index = process.argv.indexOf('--only');
  if (index < 0) return new Set(BENCHMARKS);
  const names = (process.argv[index + 1] ?? '').split(',').filter((name) => name !== '');
  const unknown = names.filter((name) => !(BENCHMARKS as readonly string[]).includes(name));
  if (names.length === 0 || unknown.length > 0) {
    console.error(`--only takes benchmark names from: ${BENCHMARKS.join(', ')}`);
    process.exit(2);
  }
  return new Set(names as Benchmark[]);
}
const selected = selectedBenchmarks();
const runs = (name: Benchmark) => selected.has(name);

/**
 * Prints a benchmark's figures and writes the results file with every figure so far, so that a
 * run that stops part way (a crash, a machine taken back) keeps what it measured.
 */
function section(title: string, value: unknown): void {
  console.log(`\n## ${title}`);
  if (Array.isArray(value)) console.table(value);
  else console.log(JSON.stringify(value, null, 2));
  saveResults();
}

const machine = {
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: cpus().length,
  memoryGigabytes: Math.round(totalmem() / 2 ** 30),
  os: `${platform()} ${release()}`,
  node: process.version,
};
console.log(
  `durable-agent-runner benchmarks on ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGigabytes} GiB`,
);

const startedAt = new Date().toISOString();
const results: Record<string, unknown> = {
  machine,
  startedAt,
  quick,
  repetitions,
  only: [...selected],
  /** Set when every selected benchmark has run; absent in the file of a run that stopped. */
  finishedAt: undefined,
};
const resultsFolder = fileURLToPath(new URL('../../bench/results/', import.meta.url));
/** Named by the run's start; rewritten after every benchmark. */
const resultsFile = `${resultsFolder}${quick ? 'quick-' : ''}${startedAt.replace(/[:.]/g, '-')}.json`;
function saveResults(): void {
  mkdirSync(resultsFolder, { recursive: true });
  writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
}

/** Why the cluster case cannot run, when it was selected and its server could not be built. */
const clusterUnavailable = runs('turn-overhead-cluster') ? buildClusterServer() : undefined;
if (clusterUnavailable !== undefined) {
  results.turnOverheadCluster = { skipped: clusterUnavailable };
  console.error(`\nThe cluster case will not run: ${clusterUnavailable}`);
}

if (runs('cli-startup')) {
  results.cliStartup = benchCliStartup(quick ? 3 : 10);
  section('dar start-up (wall time of whole processes, ms)', results.cliStartup);
}

if (runs('validation')) {
  results.validation = await benchValidation(repetitions);
  section(
    'Validation and preflight throughput (calls/s; ratio = ours / pi-ai)',
    results.validation,
  );
}

const environment = await startBenchServer();
// Before any job runs on the server: a prune asks every running workflow what it holds, and
// worker-memory leaves its jobs open there.
if (runs('prune')) await prune();
const taskQueue = `bench-${Date.now()}`;
const store = await openBenchStore();
markPoolThreads();
const worker = await createBenchWorker(environment, taskQueue, store);
await worker.runUntil(async () => {
  if (runs('turn-overhead')) await turnOverhead(environment, 'memory');
  if (runs('history-growth')) await historyGrowth();
  if (runs('long-job')) await longJob();
});

/**
 * The turn-overhead cases on one server: `memory` (the tests' in-memory server, where the
 * server's work is least and the runner's own shows most), `file` (a database file, as
 * `dar`'s embedded server keeps: what a user's jobs run on) or `cluster` (PostgreSQL, as a
 * production deployment runs).
 */
async function turnOverhead(server: BenchServer, database: BenchDatabase): Promise<void> {
  const cases = quick
    ? [
        { jobs: 5, turns: 3, callsPerTurn: 2 },
        { jobs: 30, turns: 2, callsPerTurn: 2 },
        { jobs: 30, turns: 0, callsPerTurn: 0 },
      ]
    : [
        { jobs: 20, turns: 5, callsPerTurn: 3 },
        { jobs: 200, turns: 3, callsPerTurn: 2 },
        // A job's own cost: one model call and the end, no tool turn (the cost a 4-turn job
        // spreads over its turns in the case above).
        { jobs: 200, turns: 0, callsPerTurn: 0 },
      ];
  const overhead = [];
  for (const scenario of cases) {
    const measured = await benchTurnOverhead(server, taskQueue, scenario, repetitions);
    overhead.push(measured);
    section(
      `Turn overhead (${SERVER_LABELS[database]}): ${scenario.jobs} jobs x ${scenario.turns} tool turns x ${scenario.callsPerTurn} calls`,
      measured,
    );
  }
  const key = {
    memory: 'turnOverhead',
    file: 'turnOverheadFileServer',
    cluster: 'turnOverheadCluster',
  } as const;
  results[key[database]] = overhead;
}

async function historyGrowth(): Promise<void> {
  const growth = await benchHistoryGrowth(
    environment,
    taskQueue,
    store,
    quick ? [10, 50] : [10, 100, 500, 1000],
  );
  results.historyGrowth = growth;
  section(
    'History growth (one job per size, all runs of it; store bytes for the job)',
    growth.rows,
  );
  section('History growth, the job offering the built-in tools as well', growth.withBuiltinTools);
  section('History growth ratios (largest size / smallest)', {
    historyBytesPerTurn: growth.historyBytesPerTurnRatio,
    storeBytesPerTurn: growth.storeBytesPerTurnRatio,
    largestPayloadBytes: growth.largestPayloadBytes,
  });
}

async function longJob(): Promise<void> {
  const longJob = { turns: quick ? 100 : 2000, textBytes: 3000 };
  results.longJob = {
    textBytes: longJob.textBytes,
    ...(await benchLongJob(environment, taskQueue, store, longJob.turns, longJob.textBytes)),
  };
  section(`A ${longJob.turns}-turn job, about 3 KB of text per turn`, results.longJob);
}

async function prune(): Promise<void> {
  const pruneCase = quick ? { jobs: 300, turnsPerJob: 20 } : { jobs: 4000, turnsPerJob: 50 };
  results.prune = await benchPrune(environment.client, pruneCase);
  section(
    `Prune: dry run on an embedded store of ${pruneCase.jobs} finished jobs x ${pruneCase.turnsPerJob} turns, half ended 40 days ago (time against reading every object, memory against a Set of the kept refs)`,
    results.prune,
  );
}

if (runs('worker-memory')) {
  results.workerMemory = await benchWorkerMemory(environment, quick ? 100 : 1000);
  section('Worker memory with open jobs waiting for a follow-up', results.workerMemory);
}
if (runs('rate-pacing')) {
  const pacingCase = quick ? { jobs: 40, providerRate: 10 } : { jobs: 200, providerRate: 10 };
  const onePartition = await startDevServer(devServerSinglePartitionArgs());
  results.ratePacing = await benchRatePacing(environment, onePartition, store, pacingCase);
  await onePartition.teardown();
  section(
    `Rate pacing: ${pacingCase.jobs} jobs against a provider limited to ${pacingCase.providerRate} requests/s`,
    results.ratePacing,
  );
}
if (runs('streaming')) {
  const streamingCase = quick
    ? { tokens: 60, tokenIntervalMs: 20, toolTurns: 1 }
    : { tokens: 300, tokenIntervalMs: 20, toolTurns: 2 };
  results.streaming = await benchStreaming(environment, store, streamingCase);
  section(
    `Live streaming: ${streamingCase.tokens} tokens ${streamingCase.tokenIntervalMs} ms apart to a follower; history per turn on vs off`,
    results.streaming,
  );
}
await environment.teardown();

if (runs('turn-overhead-file')) {
  // Its own server and worker, after the in-memory server is gone: the server column of the
  // CPU figures counts every dev server this process runs.
  const fileServer = await startBenchServer('file');
  const fileWorker = await createBenchWorker(fileServer, taskQueue, store);
  await fileWorker.runUntil(() => turnOverhead(fileServer, 'file'));
  await fileServer.teardown();
}

if (runs('turn-overhead-cluster') && clusterUnavailable === undefined) {
  // Last, alone on the machine: the cluster's server, its PostgreSQL (flushing each commit) and
  // the job store there, as `dar` runs with TEMPORAL_ADDRESS and DAR_STORE_URL set.
  const cluster = await startBenchCluster();
  try {
    const clusterWorker = await createBenchWorker(cluster.server, taskQueue, cluster.store);
    await clusterWorker.runUntil(() => turnOverhead(cluster.server, 'cluster'));
  } finally {
    await cluster.store.close();
    await cluster.server.teardown();
  }
}

results.finishedAt = new Date().toISOString();
saveResults();
console.log(`\nResults written to ${resultsFile}`);
