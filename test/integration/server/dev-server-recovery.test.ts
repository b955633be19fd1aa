import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectNativeConnection } from '../../../src/server/connect.js';
import { DevServerError, ensureDevServer, stopDevServer } from '../../../src/server/dev-server.js';
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

/** A stand-in for the Temporal CLI: a shell script with this body. */
function fakeBinary(folder: string, body: string): string {
  const path = join(folder, 'fake-temporal');
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

function deadPid(): number {
  const pid = spawnSync('true').pid;
  if (!pid) throw new Error('could not run `true`');
  return pid;
}

test('leftovers of a crashed run (record and lock of dead processes) do not block a start', async () => {
  const stateDir = await newStateDir();
  const gone = deadPid();
  writeFileSync(join(stateDir, 'server.lock'), `${gone}\n`);
  writeFileSync(
    join(stateDir, 'server.json'),
    JSON.stringify({
      pid: gone,
      port: 1,
      uiPort: 2,
      binaryPath: '/nowhere/temporal',
      databaseFile: join(stateDir, 'temporal.db'),
      startedAt: new Date().toISOString(),
    }),
  );

  const server = await ensureDevServer({ stateDir });
  expect(server.started).toBe(true);
  expect(server.pid).not.toBe(gone);

  // The worker-side connection reaches the same server.
  const worker = await connectNativeConnection({ kind: 'embedded', stateDir });
  try {
    expect(worker.address).toBe(server.address);
    const info = await worker.connection.workflowService.getSystemInfo({});
    expect(info.serverVersion).toBeTruthy();
  } finally {
    await worker.connection.close();
  }
  expect(await stopDevServer(stateDir)).toBe(true);
});

test('a server that exits at once: a clear error quoting its log', async () => {
  const stateDir = await newStateDir();
  const binary = fakeBinary(stateDir, 'echo "simulated failure: database is locked" >&2\nexit 3');
  const attempt = ensureDevServer({ stateDir, environment: { TEMPORAL_CLI_PATH: binary } });
  await expect(attempt).rejects.toThrow(DevServerError);
  await expect(attempt).rejects.toThrow(/exit code 3.*\n.*server\.log.*\n.*simulated failure/s);
  expect(existsSync(join(stateDir, 'server.json'))).toBe(false);
  expect(existsSync(join(stateDir, 'server.lock'))).toBe(false);
});

test('a server that never answers is stopped after the timeout', async () => {
  const stateDir = await newStateDir();
  const binary = fakeBinary(stateDir, 'echo $$ > fake.pid\necho "still booting"\nexec sleep 60');
  const attempt = ensureDevServer({
    stateDir,
    readyTimeoutMs: 1_000,
    environment: { TEMPORAL_CLI_PATH: binary },
  });
  await expect(attempt).rejects.toThrow(/not ready after 1 s.*still booting/s);
  const pid = Number(readFileSync(join(stateDir, 'fake.pid'), 'utf8'));
  expect(isProcessAlive(pid)).toBe(false);
});
