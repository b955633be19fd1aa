import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { createActivities } from '../src/activities/index.js';
import { findFreePort } from '../src/server/ports.js';
import { startLocalCluster } from '../test/cluster/support/local-cluster.js';
import { startDevServer } from '../test/support/temporal-server.js';
import { builtinToolList } from '../src/tools/index.js';
import { FileJobStore } from '../src/store/file/file-job-store.js';
import type { JobStore } from '../src/store/job-store.js';
import { openJobStore } from '../src/store/open-job-store.js';
import { createAgentWorker } from '../src/worker/agent-worker.js';
import type { AgentWorker } from '../src/worker/agent-worker-group.js';
import { timedActivities } from './activity-timing.js';
import * as bareActivities from './bare-activities.js';
import { noopTool } from './noop-tool-body.js';
import { countAsServer, forgetServerProcesses } from './thread-cpu.js';

export const benchWorkflowsPath = fileURLToPath(new URL('./workflows.js', import.meta.url));

/** Where the bench's dev server publishes its counters (see `server-metrics.ts`). */
export let benchServerMetricsUrl = '';

/**
 * Where a bench server keeps its state: in memory (the tests' dev servers), in a database file,
 * as `dar`'s embedded server does (SQLite, flushed at every commit: what a user's jobs run on),
 * or a cluster's PostgreSQL (`startBenchCluster`).
 */
export type BenchDatabase = 'memory' | 'file' | 'cluster';

/** What the benchmarks use of a server: a client, a worker connection, and its shutdown. */
export type BenchServer = Pick<TestWorkflowEnvironment, 'client' | 'nativeConnection' | 'teardown'>;

/**
 * A dev server started like the tests' (search attributes registered), with its metrics
 * endpoint on a free port. A `file` server's database sits in a fresh temporary folder, which
 * `teardown` removes.
 */
export async function startBenchServer(
  database: 'memory' | 'file' = 'memory',
): Promise<TestWorkflowEnvironment> {
  installQuietRuntime();
  const port = await findFreePort('127.0.0.1');
  benchServerMetricsUrl = `http://127.0.0.1:${port}/metrics`;
  if (database === 'memory') return startDevServer(['--metrics-port', String(port)]);
  const folder = mkdtempSync(join(tmpdir(), 'dar-bench-server-'));
  const environment = await startDevServer([
    '--metrics-port',
    String(port),
    '--db-filename',
    join(folder, 'temporal.db'),
  ]);
  const teardown = environment.teardown.bind(environment);
  environment.teardown = async () => {
    await teardown();
    rmSync(folder, { recursive: true, force: true });
  };
  return environment;
}

/** Temporal's runtime logging errors only (once a process: the first server installs it). */
function installQuietRuntime(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // Installed by the run's first server.
  }
}

/** A cluster for a benchmark: its server and the job store on its PostgreSQL. */
export interface BenchCluster {
  server: BenchServer;
  store: JobStore;
}

/**
 * A Temporal cluster on PostgreSQL as docker-compose.yml deploys it (scripts/cluster/cluster.mjs),
 * its PostgreSQL flushing each commit as a production one does (`--durable`) and its metrics
 * published (`--metrics`), with the job store in the same PostgreSQL (`DAR_STORE_URL`), as
 * `dar` on a cluster keeps it. Its server and database processes count as the `server` CPU
 * group. `teardown` stops it and deletes its folder; the store must be closed first.
 */
export async function startBenchCluster(): Promise<BenchCluster> {
  installQuietRuntime();
  const cluster = await startLocalCluster(['--durable', '--metrics']);
  const metricsUrl = cluster.env.TEMPORAL_METRICS_URL;
  const serverPid = cluster.serverPid();
  if (!metricsUrl || serverPid === undefined) {
    await cluster.down();
    throw new Error('cluster.mjs up printed no metrics URL or recorded no server pid');
  }
  benchServerMetricsUrl = metricsUrl;
  const postmaster = readFileSync(
    join(cluster.folder, 'postgres', 'data', 'postmaster.pid'),
    'utf8',
  );
  countAsServer([serverPid, Number(postmaster.split('\n')[0])]);
  const connection = await Connection.connect({ address: cluster.address });
  const nativeConnection = await NativeConnection.connect({ address: cluster.address });
  const client = new Client({ connection, namespace: cluster.env.TEMPORAL_NAMESPACE });
  const store = await openJobStore({ url: cluster.storeUrl, folder: cluster.folder });
  const teardown = async () => {
    await nativeConnection.close();
    await connection.close();
    forgetServerProcesses();
    await cluster.down();
  };
  return { server: { client, nativeConnection, teardown }, store };
}

/**
 * An embedded job store in a fresh temporary folder; `flushWrites: false` leaves out its flushes
 * to disk (what they cost, by difference with a store that makes them).
 */
export async function openBenchStore(flushWrites = true): Promise<FileJobStore> {
  return FileJobStore.open({
    folder: mkdtempSync(join(tmpdir(), 'dar-bench-store-')),
    flushWrites,
  });
}

/**
 * Bytes of every file under a folder (a job store's size on disk, without block rounding). A
 * file with several names (the event store links a burst's file to each of its events' names)
 * counts once.
 */
export function folderBytes(folder: string): number {
  const files = new Map<string, number>();
  for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const stats = statSync(join(entry.parentPath, entry.name));
    files.set(`${stats.dev}:${stats.ino}`, stats.size);
  }
  return [...files.values()].reduce((total, size) => total + size, 0);
}

/**
 * One worker serving both sides with the same settings: the runner and the bare baseline.
 * Activities are timed (see `takeActivityTimes`); the timing costs both sides the same.
 */
export async function createBenchWorker(
  environment: BenchServer,
  taskQueue: string,
  store: JobStore,
): Promise<AgentWorker> {
  return createAgentWorker({
    connection: environment.nativeConnection,
    taskQueue,
    workflowsPath: benchWorkflowsPath,
    store,
    workerOptions: {
      activities: timedActivities({
        ...createActivities([...builtinToolList, noopTool], store),
        ...bareActivities,
      }),
    },
  });
}

/** A model script of `turns` turns with `calls` no-op tool calls each, then a final answer. */
export function writeNoopScript(folder: string, turns: number, calls: number): string {
  const answers = Array.from({ length: turns }, (_, turn) => ({
    stopReason: 'toolUse',
    content: Array.from({ length: calls }, (_, index) => ({
      type: 'toolCall',
      id: `t${turn}-c${index}`,
      name: 'noop',
      arguments: { index },
    })),
  }));
  answers.push({ stopReason: 'stop', content: [{ type: 'text', text: 'done' }] } as never);
  const path = join(folder, `noop-${turns}x${calls}.json`);
  writeFileSync(path, JSON.stringify(answers));
  return path;
}
