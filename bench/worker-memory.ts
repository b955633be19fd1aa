import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startJob } from '../src/client/job-client.js';
import { FileJobStore } from '../src/store/file/file-job-store.js';
import { ratio, round } from './statistics.js';

const workerScript = fileURLToPath(new URL('./worker-process.js', import.meta.url));

function residentMegabytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kilobytes = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return kilobytes / 1024;
}

async function startWorkerProcess(
  address: string,
  taskQueue: string,
  storeFolder: string,
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [workerScript, address, taskQueue, storeFolder], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`worker process exited with ${code}`)));
  });
  return child;
}

async function stopWorkerProcess(child: ChildProcess): Promise<void> {
  // A worker that has died already would never report its exit again.
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/**
 * Runs `use` with a worker process on `taskQueue` and the job store it writes (a file store in a
 * folder of its own, which `use` reads the jobs' status from, as `dar status` does); stops both
 * afterwards, whatever happens.
 */
async function withWorkerProcess<T>(
  address: string,
  taskQueue: string,
  use: (pid: number, store: FileJobStore) => Promise<T>,
): Promise<T> {
  const storeFolder = mkdtempSync(join(tmpdir(), `dar-bench-${taskQueue}-store-`));
  const store = await FileJobStore.open({ folder: storeFolder });
  const child = await startWorkerProcess(address, taskQueue, storeFolder);
  try {
    return await use(child.pid ?? 0, store);
  } finally {
    await stopWorkerProcess(child);
    await store.close();
  }
}

/** How long the jobs of one side may take to all be waiting before the benchmark gives up. */
const SETTLE_LIMIT_MS = 10 * 60_000;

/**
 * Starts `count` jobs (20 at a time) and waits until each probe says its job waits; throws,
 * naming how many do not, if they are not all waiting within `SETTLE_LIMIT_MS`.
 */
async function startAll(
  side: string,
  count: number,
  start: (index: number) => Promise<() => Promise<boolean>>,
) {
  const probes: (() => Promise<boolean>)[] = [];
  for (let index = 0; index < count; index += 20) {
    const chunk = Array.from({ length: Math.min(20, count - index) }, (_, offset) =>
      start(index + offset),
    );
    probes.push(...(await Promise.all(chunk)));
  }
  const deadline = Date.now() + SETTLE_LIMIT_MS;
  for (const [index, probe] of probes.entries()) {
    while (!(await probe())) {
      if (Date.now() > deadline) {
        const rest = await Promise.all(probes.slice(index).map((other) => other()));
        const notWaiting = rest.filter((waits) => !waits).length;
        throw new Error(
          `${notWaiting} of ${count} ${side} jobs were not waiting after ${SETTLE_LIMIT_MS / 60_000} minutes`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** RSS of a worker holding `count` open jobs that wait for a follow-up, against bare waits. */
export async function benchWorkerMemory(environment: TestWorkflowEnvironment, count: number) {
  const folder = mkdtempSync(join(tmpdir(), 'dar-bench-memory-'));
  const script = join(folder, 'answer.json');
  writeFileSync(
    script,
    JSON.stringify([{ stopReason: 'stop', content: [{ type: 'text', text: 'hi' }] }]),
  );
  const stamp = Date.now();

  const measure = (side: 'runner' | 'bare') => {
    const taskQueue = `memory-${side}-${stamp}`;
    return withWorkerProcess(environment.address, taskQueue, async (pid, store) => {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const idle = residentMegabytes(pid);
      await startAll(side, count, async (index) => {
        const workflowId = `${taskQueue}-${index}`;
        if (side === 'bare') {
          const handle = await environment.client.workflow.start('bareWaiting', {
            taskQueue,
            workflowId,
          });
          // A bare job waits as soon as its first workflow task completed.
          return async () => (await handle.describe()).historyLength >= 4;
        }
        const job = await startJob(
          environment.client,
          {
            prompt: 'hello',
            model: `scripted:${script}`,
            workspace: folder,
            tools: [],
            keepOpenMs: 3_600_000,
          },
          { taskQueue, workflowId, store },
        );
        return async () => (await job.status()).phase === 'waiting';
      });
      const loaded = residentMegabytes(pid);
      return {
        idleMegabytes: round(idle, 1),
        loadedMegabytes: round(loaded, 1),
        perJobKilobytes: round(((loaded - idle) * 1024) / count, 1),
      };
    });
  };

  const bare = await measure('bare');
  const runner = await measure('runner');
  return {
    openJobs: count,
    runner,
    bare,
    ratios: {
      loadedRss: ratio(runner.loadedMegabytes, bare.loadedMegabytes),
      perJob: ratio(runner.perJobKilobytes, bare.perJobKilobytes),
    },
  };
}
