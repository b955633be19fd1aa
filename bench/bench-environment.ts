import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createActivities } from '../src/activities/index.js';
import { findFreePort } from '../src/server/ports.js';
import { startDevServer } from '../test/support/temporal-server.js';
import { builtinToolList } from '../src/tools/index.js';
import { FileJobStore } from '../src/store/file/file-job-store.js';
import type { JobStore } from '../src/store/job-store.js';
import { createAgentWorker } from '../src/worker/agent-worker.js';
import type { AgentWorker } from '../src/worker/agent-worker-group.js';
import { timedActivities } from './activity-timing.js';
import * as bareActivities from './bare-activities.js';
import { noopTool } from './noop-tool-body.js';

export const benchWorkflowsPath = fileURLToPath(new URL('./workflows.js', import.meta.url));

/** Where the bench's dev server publishes its counters (see `server-metrics.ts`). */
export let benchServerMetricsUrl = '';

/**
 * Where a bench dev server keeps its state: in memory (as the tests' servers do), or in a
 * database file, as `dar`'s embedded server does (SQLite, flushed at every commit: what a
 * user's jobs run on).
 */
export type BenchDatabase = 'memory' | 'file';

/**
 * A dev server started like the tests' (search attributes registered), with its metrics
 * endpoint on a free port. A `file` server's database sits in a fresh temporary folder, which
 * `teardown` removes.
 */
export async function startBenchServer(
  database: BenchDatabase = 'memory',
): Promise<TestWorkflowEnvironment> {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // Installed by the run's first server.
  }
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

/** An embedded job store in a fresh temporary folder. */
export async function openBenchStore(): Promise<FileJobStore> {
  return FileJobStore.open({ folder: mkdtempSync(join(tmpdir(), 'dar-bench-store-')) });
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
  environment: TestWorkflowEnvironment,
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
