import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { connectClient } from '../../../src/server/connect.js';
import {
  ensureDevServer,
  findRunningDevServer,
  stopDevServer,
} from '../../../src/server/dev-server.js';
import { isProcessAlive } from '../../../src/server/process-liveness.js';

const stateDirs: string[] = [];

async function newStateDir(): Promise<string> {
  const stateDir = await mkdtemp(join(tmpdir(), 'dar-server-'));
  stateDirs.push(stateDir);
  return stateDir;
}

afterAll(async () => {
  // In parallel: each stop waits for a graceful shutdown of one to two seconds.
  await Promise.all(
    stateDirs.map(async (stateDir) => {
      await stopDevServer(stateDir);
      await rm(stateDir, { recursive: true, force: true });
    }),
  );
});

/** Waits for visibility (written asynchronously by the server) to list the workflow. */
async function listedIds(client: Client, workflowId: string): Promise<string[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const ids: string[] = [];
    for await (const execution of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
      ids.push(execution.workflowId);
    }
    if (ids.length > 0 || Date.now() > deadline) return ids;
    await sleep(200);
  }
}

test('starts a server once and reuses it', async () => {
  const stateDir = await newStateDir();
  const progress: string[] = [];
  const startedAt = Date.now();
  const first = await ensureDevServer({ stateDir, onProgress: (line) => progress.push(line) });
  const startMs = Date.now() - startedAt;
  console.log(`dev server started in ${startMs} ms`);

  expect(first).toMatchObject({ namespace: 'default', started: true });
  expect(first.address).toMatch(/^127\.0\.0\.1:\d+$/);
  expect(first.uiAddress).toMatch(/^127\.0\.0\.1:\d+$/);
  expect(isProcessAlive(first.pid)).toBe(true);
  expect(progress.some((line) => line.includes('ready on'))).toBe(true);
  const record = JSON.parse(readFileSync(join(stateDir, 'server.json'), 'utf8')) as {
    pid: number;
  };
  expect(record.pid).toBe(first.pid);
  expect(existsSync(join(stateDir, 'temporal.db'))).toBe(true);
  expect(existsSync(join(stateDir, 'server.lock'))).toBe(false);

  const second = await ensureDevServer({ stateDir });
  expect(second).toEqual({ ...first, started: false });
  expect(await findRunningDevServer(stateDir)).toEqual({ ...first, started: false });
});

test('concurrent calls for one state folder start a single server', async () => {
  const stateDir = await newStateDir();
  const [one, two] = await Promise.all([
    ensureDevServer({ stateDir }),
    ensureDevServer({ stateDir }),
  ]);
  expect(one.pid).toBe(two.pid);
  expect([one.started, two.started].sort()).toEqual([false, true]);
});

test('concurrent starts for different state folders get servers of their own', async () => {
  const folders = [await newStateDir(), await newStateDir()];
  const servers = await Promise.all(folders.map((stateDir) => ensureDevServer({ stateDir })));
  expect(servers.every((server) => server.started)).toBe(true);
  expect(new Set(servers.map((server) => server.pid)).size).toBe(2);
  expect(new Set(servers.map((server) => server.address)).size).toBe(2);
  expect(new Set(servers.map((server) => server.uiAddress)).size).toBe(2);
});

test('a workflow survives stopping and restarting the server', async () => {
  const stateDir = await newStateDir();
  const settings = { kind: 'embedded', stateDir } as const;
  const workflowId = `persisted-${randomUUID()}`;

  const before = await connectClient(settings);
  const first = await ensureDevServer({ stateDir });
  try {
    // Nobody polls this task queue: the workflow stays running.
    await before.client.workflow.start('nobodyRunsThis', {
      taskQueue: `unpolled-${randomUUID()}`,
      workflowId,
      args: [{ prompt: 'hello' }],
    });
    expect(await listedIds(before.client, workflowId)).toEqual([workflowId]);
  } finally {
    await before.connection.close();
  }

  expect(await stopDevServer(stateDir)).toBe(true);
  expect(isProcessAlive(first.pid)).toBe(false);
  expect(existsSync(join(stateDir, 'server.json'))).toBe(false);
  expect(await findRunningDevServer(stateDir)).toBeUndefined();

  const second = await ensureDevServer({ stateDir });
  expect(second.started).toBe(true);
  expect(second.pid).not.toBe(first.pid);
  // The saved ports are reused when free.
  expect(second.address).toBe(first.address);
  expect(second.uiAddress).toBe(first.uiAddress);

  const after = await connectClient(settings);
  try {
    const description = await after.client.workflow.getHandle(workflowId).describe();
    expect(description.status.name).toBe('RUNNING');
    expect(description.type).toBe('nobodyRunsThis');
    expect(await listedIds(after.client, workflowId)).toEqual([workflowId]);
  } finally {
    await after.connection.close();
  }
});

test('stopDevServer when nothing runs resolves false', async () => {
  const stateDir = await newStateDir();
  expect(await stopDevServer(stateDir)).toBe(false);
  expect(await stopDevServer(join(stateDir, 'never-created'))).toBe(false);
  expect(existsSync(join(stateDir, 'never-created'))).toBe(false);
});
