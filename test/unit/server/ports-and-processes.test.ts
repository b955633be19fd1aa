import { spawn, spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { choosePorts } from '../../../src/server/dev-server-ports.js';
import { acceptsConnections, findFreePort, isPortFree } from '../../../src/server/ports.js';
import {
  isProcessAlive,
  processArguments,
  terminateProcessGroup,
} from '../../../src/server/process-liveness.js';

const host = '127.0.0.1';

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ port, host }, () => resolve(server));
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

describe('ports', () => {
  test('a port is free until someone listens on it', async () => {
    const port = await findFreePort(host);
    expect(await isPortFree(port, host)).toBe(true);
    expect(await acceptsConnections(port, host)).toBe(false);
    const server = await listen(port);
    try {
      expect(await isPortFree(port, host)).toBe(false);
      expect(await acceptsConnections(port, host)).toBe(true);
    } finally {
      await close(server);
    }
  });

  test('choosePorts keeps saved ports that are free and replaces taken ones', async () => {
    const taken = await listen(0);
    const takenPort = (taken.address() as { port: number }).port;
    const freeUiPort = await findFreePort(host);
    try {
      const ports = await choosePorts({ port: takenPort, uiPort: freeUiPort });
      expect(ports.uiPort).toBe(freeUiPort);
      expect(ports.port).not.toBe(takenPort);
      expect(ports.port).not.toBe(ports.uiPort);
      expect(await isPortFree(ports.port, host)).toBe(true);
    } finally {
      await close(taken);
    }
  });

  test('choosePorts without preference: random distinct free ports', async () => {
    const ports = await choosePorts({ port: 7233, uiPort: 8233 }, false);
    expect(ports.port).not.toBe(ports.uiPort);
    expect(ports.port).not.toBe(7233);
  });
});

describe('processes', () => {
  test('alive, dead', () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    const exited = spawnSync('true').pid;
    expect(exited && isProcessAlive(exited)).toBe(false);
  });

  test('the command line of a process (Linux)', () => {
    const args = processArguments(process.pid);
    if (args === undefined) return; // no /proc here
    expect(args[0]).toBe(process.argv0);
  });

  test('terminateProcessGroup stops a detached process group', async () => {
    const child = spawn('sh', ['-c', 'sleep 30 & sleep 30'], { detached: true, stdio: 'ignore' });
    child.unref();
    const pid = child.pid;
    if (pid === undefined) throw new Error('no pid');
    expect(isProcessAlive(pid)).toBe(true);
    await terminateProcessGroup(pid, 2_000);
    expect(isProcessAlive(pid)).toBe(false);
    // The background `sleep` in the same group is gone too (or a zombie, where nobody reaps).
    const group = spawnSync('ps', ['-o', 'stat=', '-g', String(pid)], { encoding: 'utf8' });
    const states = group.stdout.split('\n').map((stat) => stat.trim());
    const living = states.filter((stat) => stat && !stat.startsWith('Z'));
    expect(living).toEqual([]);
  });
});
