import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Whether a process with this id exists and has not exited. A zombie (exited, not yet reaped by
 * its parent) counts as exited; that check needs Linux's /proc and is skipped elsewhere.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  try {
    // Format: "pid (command) state ..."; the command may contain spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

/**
 * The process's command-line arguments, or undefined where they cannot be read (not Linux, or
 * the process is gone). Used to tell our server from an unrelated process that got its pid.
 */
export function processArguments(pid: number): string[] | undefined {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return raw.split('\0').filter((part) => part.length > 0);
  } catch {
    return undefined;
  }
}

/** Resolves true once the process has exited, false if it still runs after `timeoutMs`. */
export async function waitForProcessExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isProcessAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await sleep(50);
  }
  return true;
}

/**
 * Stops a process group led by `pid`: SIGTERM, then SIGKILL if it is still there after
 * `graceMs`. Resolves once the leader has exited (or after a further few seconds, if even
 * SIGKILL did not help, which only happens for processes we may not signal).
 */
export async function terminateProcessGroup(pid: number, graceMs = 10_000): Promise<void> {
  if (!signalGroup(pid, 'SIGTERM')) return;
  if (await waitForProcessExit(pid, graceMs)) return;
  signalGroup(pid, 'SIGKILL');
  await waitForProcessExit(pid, 5_000);
}

/** Signals the group led by `pid`; false when there is no such group any more. */
export function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}
