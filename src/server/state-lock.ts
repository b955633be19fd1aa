import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { isProcessAlive } from './process-liveness.js';

export interface StateLockOptions {
  /** How long to wait for another holder before giving up. */
  timeoutMs?: number;
  /** Pause between attempts. */
  pollMs?: number;
}

/** A lock file whose content is not (yet) a pid is stale once it is this old. */
const UNREADABLE_LOCK_GRACE_MS = 5_000;

/**
 * Runs `action` while holding `lockFile`, so that two processes (or two calls in one process)
 * do not start or stop the same server at once. The lock is a file created exclusively (`wx`)
 * holding the holder's pid; a lock whose holder has died is stale and is taken over. Waits up to
 * `timeoutMs` (default 90 s) for a live holder, then throws an error naming the lock file.
 */
export async function withStateLock<T>(
  lockFile: string,
  action: () => Promise<T>,
  options: StateLockOptions = {},
): Promise<T> {
  await acquire(lockFile, options.timeoutMs ?? 90_000, options.pollMs ?? 100);
  try {
    return await action();
  } finally {
    rmSync(lockFile, { force: true });
  }
}

async function acquire(lockFile: string, timeoutMs: number, pollMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      writeFileSync(lockFile, `${process.pid}\n`, { flag: 'wx' });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = readHolder(lockFile);
    if (holder.stale) {
      // Re-read just before removing: another process may have taken the stale lock over
      // meanwhile, and its fresh lock must not be removed.
      if (readHolder(lockFile).content === holder.content) rmSync(lockFile, { force: true });
      continue;
    }
    if (Date.now() >= deadline) {
      throw new Error(
        `Timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${lockFile}, held by ` +
          `process ${holder.content.trim() || '(unknown)'}. If no dar process is running, delete the file.`,
      );
    }
    await sleep(pollMs);
  }
}

function readHolder(lockFile: string): { content: string; stale: boolean } {
  let content: string;
  try {
    content = readFileSync(lockFile, 'utf8');
  } catch {
    // Released between our attempt and this read: try again at once.
    return { content: '', stale: true };
  }
  const pid = Number.parseInt(content, 10);
  if (Number.isInteger(pid) && pid > 0) return { content, stale: !isProcessAlive(pid) };
  // Created but not yet written, or left empty by a crash: stale only once it is old.
  return { content, stale: ageOf(lockFile) > UNREADABLE_LOCK_GRACE_MS };
}

function ageOf(file: string): number {
  try {
    return Date.now() - statSync(file).mtimeMs;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}
