import { spawnSync } from 'node:child_process';
import { existsSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { withStateLock } from '../../../src/server/state-lock.js';

let folder: string;
let lockFile: string;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'dar-lock-'));
  lockFile = join(folder, 'server.lock');
});

afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** The id of a process that has exited (and been reaped). */
function deadPid(): number {
  const pid = spawnSync('true').pid;
  if (!pid) throw new Error('could not run `true`');
  return pid;
}

test('runs the action holding the lock, then releases it', async () => {
  const result = await withStateLock(lockFile, async () => {
    expect(existsSync(lockFile)).toBe(true);
    return 42;
  });
  expect(result).toBe(42);
  expect(existsSync(lockFile)).toBe(false);
});

test('releases the lock when the action throws', async () => {
  await expect(
    withStateLock(lockFile, async () => {
      throw new Error('boom');
    }),
  ).rejects.toThrow('boom');
  expect(existsSync(lockFile)).toBe(false);
});

test('serialises concurrent holders', async () => {
  const events: string[] = [];
  const hold = (name: string) =>
    withStateLock(
      lockFile,
      async () => {
        events.push(`${name} in`);
        await sleep(100);
        events.push(`${name} out`);
      },
      { pollMs: 10 },
    );
  await Promise.all([hold('first'), hold('second')]);
  expect(events).toEqual(['first in', 'first out', 'second in', 'second out']);
});

test('takes over a lock whose holder has died', async () => {
  writeFileSync(lockFile, `${deadPid()}\n`);
  await expect(withStateLock(lockFile, async () => 'taken', { timeoutMs: 1_000 })).resolves.toBe(
    'taken',
  );
});

test('takes over an old lock without a pid, waits on a fresh one', async () => {
  writeFileSync(lockFile, '');
  await expect(
    withStateLock(lockFile, async () => 'no', { timeoutMs: 200, pollMs: 20 }),
  ).rejects.toThrow(/Timed out/);
  const longAgo = new Date(Date.now() - 60_000);
  utimesSync(lockFile, longAgo, longAgo);
  await expect(withStateLock(lockFile, async () => 'taken', { timeoutMs: 1_000 })).resolves.toBe(
    'taken',
  );
});

test('gives up on a live holder after the timeout, naming the lock file', async () => {
  writeFileSync(lockFile, `${process.pid}\n`);
  await expect(
    withStateLock(lockFile, async () => 'no', { timeoutMs: 200, pollMs: 20 }),
  ).rejects.toThrow(`waiting for ${lockFile}, held by process ${process.pid}`);
  expect(existsSync(lockFile)).toBe(true);
});
