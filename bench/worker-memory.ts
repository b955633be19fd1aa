import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startJob } from '../src/client/job-client.js';
import { ratio, round } from './statistics.js';

const workerScript = fileURLToPath(new URL('./worker-process.js', import.meta.url));

function residentMegabytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kilobytes = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return kilobytes / 1024;
}

async function startWorkerProcess(address: string, taskQueue: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [workerScript, address, taskQueue], {
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
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Starts `count` jobs (20 at a time) and waits until `isWaiting` says each one waits. */
async function startAll(count: number, start: (index: number) => Promise<() => Promise<boolean>>) {
  const probes: (() => Promise<boolean>)[] = [];
  for (let index = 0; index < count; index += 20) {
    const chunk = Array.from({ length: Math.min(20, count - index) }, (_, offset) =>
      start(index + offset),
    );
    probes.push(...(await Promise.all(chunk)));
  }
  for (const probe of probes) {
    while (!(await probe())) await new Promise((resolve) => setTimeout(resolve, 50));
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

  const measure = async (side: 'runner' | 'bare') => {
    const taskQueue = `memory-${side}-${stamp}`;
    const child = await startWorkerProcess(environment.address, taskQueue);
    const pid = child.pid ?? 0;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const idle = residentMegabytes(pid);
    await startAll(count, async (index) => {
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
        { taskQueue, workflowId },
      );
      return async () => (await job.status()).phase === 'waiting';
    });
    const loaded = residentMegabytes(pid);
    await stopWorkerProcess(child);
    return {
      idleMegabytes: round(idle, 1),
      loadedMegabytes: round(loaded, 1),
      perJobKilobytes: round(((loaded - idle) * 1024) / count, 1),
    };
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
