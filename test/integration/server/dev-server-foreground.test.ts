import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DevServerError,
  ensureDevServer,
  findRunningDevServer,
  runDevServerForeground,
  stopDevServer,
  type DevServerEndpoint,
} from '../../../src/server/dev-server.js';
import { isProcessAlive } from '../../../src/server/process-liveness.js';

let stateDir: string;

beforeAll(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'dar-foreground-'));
});

afterAll(async () => {
  await stopDevServer(stateDir);
  await rm(stateDir, { recursive: true, force: true });
});

/** Starts a foreground server and resolves once it answers, with its eventual exit code. */
async function startForeground(): Promise<{
  endpoint: DevServerEndpoint;
  exitCode: Promise<number>;
}> {
  let ready!: (endpoint: DevServerEndpoint) => void;
  const readiness = new Promise<DevServerEndpoint>((resolve) => (ready = resolve));
  const exitCode = runDevServerForeground(stateDir, { onReady: ready, output: 'log' });
  const endpoint = await Promise.race([
    readiness,
    exitCode.then((code) => Promise.reject(new Error(`exited early with ${code}`))),
  ]);
  return { endpoint, exitCode };
}

test('a foreground server is used by other callers and ends when stopped', async () => {
  const { endpoint, exitCode } = await startForeground();
  expect(endpoint.started).toBe(true);
  expect(await findRunningDevServer(stateDir)).toEqual({ ...endpoint, started: false });
  expect((await ensureDevServer({ stateDir })).pid).toBe(endpoint.pid);
  // A second foreground server for the same folder is refused.
  await expect(runDevServerForeground(stateDir)).rejects.toThrow(DevServerError);

  expect(await stopDevServer(stateDir)).toBe(true);
  expect(typeof (await exitCode)).toBe('number');
  expect(await findRunningDevServer(stateDir)).toBeUndefined();
});

test('SIGINT to dar is forwarded to the foreground server', async () => {
  const before = process.listeners('SIGINT');
  const { endpoint, exitCode } = await startForeground();
  const ours = process.listeners('SIGINT').filter((listener) => !before.includes(listener));
  expect(ours).toHaveLength(1);
  // Call our handler directly rather than signalling the test process itself.
  ours[0]?.('SIGINT');
  expect(typeof (await exitCode)).toBe('number');
  expect(isProcessAlive(endpoint.pid)).toBe(false);
  expect(await findRunningDevServer(stateDir)).toBeUndefined();
  expect(process.listeners('SIGINT')).toEqual(before);
});
