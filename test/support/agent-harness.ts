import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkerOptions } from '@temporalio/worker';
import { AgentJob, startJob } from '../../src/client/job-client.js';
import type { ScriptedAnswer } from '../../src/providers/model-script.js';
import { FileJobStore } from '../../src/store/file/file-job-store.js';
import type { JobStore } from '../../src/store/job-store.js';
import { createAgentWorker } from '../../src/worker/agent-worker.js';
import type { AgentWorker } from '../../src/worker/agent-worker-group.js';
import type { AgentJobInput } from '../../src/workflows/job-types.js';
import { flakyTool } from '../integration/agent/flaky-tool-body.js';
import { startDevServer } from './temporal-server.js';
import { cachedWorkflowBundle } from './workflow-bundle-cache.js';
import type { ProviderFactory } from '../../src/providers/registry.js';

export const testWorkflowsPath = fileURLToPath(
  new URL('../integration/agent/workflows.ts', import.meta.url),
);

export function temporaryFolder(prefix = 'dar-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Writes a model script into `folder` and returns the `scripted:` model name. */
export function scriptedModel(folder: string, answers: ScriptedAnswer[]): string {
  const path = join(folder, `script-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify(answers, null, 2));
  return `scripted:${path}`;
}

export function toolCall(id: string, name: string, args: unknown) {
  return { type: 'toolCall' as const, id, name, arguments: args };
}

export function text(value: string) {
  return { type: 'text' as const, text: value };
}

/** An embedded job store in a fresh temporary folder. */
export function openTestStore(folder = temporaryFolder('dar-store-')): Promise<JobStore> {
  return FileJobStore.open({ folder, follow: { intervalMs: 50 }, flushWrites: false });
}

/** Every file under a folder, as one text (to look for what must or must not be stored). */
export function folderText(folder: string): string {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'utf8'))
    .join('\n');
}

/**
 * A worker for the test workflow module. It keeps a workflow cache: with none (size 0), a job
 * waiting for its local activity (the progress recorder) holds the worker's only workflow slot,
 * and the other jobs' workflow tasks time out meanwhile. Replay of whole histories is covered by
 * the replay tests and the crash tests.
 */
export async function createTestWorker(
  environment: TestWorkflowEnvironment,
  taskQueue: string,
  store: JobStore,
  workerOptions: Partial<WorkerOptions> = {},
  providers?: Readonly<Record<string, ProviderFactory>>,
): Promise<AgentWorker> {
  return createAgentWorker({
    connection: environment.nativeConnection,
    taskQueue,
    workflowBundlePath: await cachedWorkflowBundle(testWorkflowsPath),
    tools: [flakyTool],
    store,
    ...(providers ? { providers } : {}),
    workerOptions: { maxCachedWorkflows: 100, ...workerOptions },
  });
}

export function uniqueName(prefix: string): string {
  return `${prefix}-${crypto.randomUUID()}`;
}

export function jobInput(partial: Partial<AgentJobInput> & { model: string; workspace: string }) {
  return {
    prompt: 'do the task',
    tools: ['read', 'write', 'edit', 'ls', 'bash', 'flaky'],
    ...partial,
  } satisfies AgentJobInput;
}

/** Polls the job's status until its phase is `phase` (20 s at most). */
export async function waitForPhase(job: AgentJob, phase: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    if ((await job.status()).phase === phase) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`job never reached phase ${phase}`);
}

export async function startTestJob(
  server: Pick<AgentTestServer, 'environment' | 'taskQueue' | 'store'>,
  input: AgentJobInput,
): Promise<AgentJob> {
  return startJob(server.environment.client, input, {
    taskQueue: server.taskQueue,
    workflowId: uniqueName('job'),
    store: server.store,
  });
}

export interface AgentTestServer {
  environment: TestWorkflowEnvironment;
  taskQueue: string;
  /** The job store the test worker writes and the jobs started here read. */
  store: JobStore;
  /** The state folder whose `store/` the store is: `dar --state-dir` reads the same jobs. */
  stateDir: string;
}

/**
 * For a test file: a real dev server and a test worker, started before its tests and stopped
 * after them. `serverArgs` go to the dev server (dynamic config, say).
 */
export function useAgentTestServer(prefix: string, serverArgs: string[] = []): AgentTestServer {
  const server = { taskQueue: uniqueName(prefix) } as AgentTestServer;
  let worker: AgentWorker | undefined;
  let workerRun: Promise<void> | undefined;
  beforeAll(async () => {
    server.environment = await startDevServer(serverArgs);
    server.stateDir = temporaryFolder('dar-state-');
    server.store = await openTestStore(join(server.stateDir, 'store'));
    worker = await createTestWorker(server.environment, server.taskQueue, server.store);
    workerRun = worker.run();
  });
  afterAll(async () => {
    worker?.shutdown();
    await workerRun;
    await server.environment?.teardown();
    await server.store?.close();
  });
  return server;
}
