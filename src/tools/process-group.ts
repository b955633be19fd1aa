import { errorCode } from './error-code.js';

/** How long a process group gets to end after SIGTERM before it is sent SIGKILL. */
const TERMINATE_GRACE_MS = 2000;
const POLL_INTERVAL_MS = 100;

/** Sends `signal` to every process in the group; false when the group is already gone. */
function signalGroup(groupId: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-groupId, signal);
    return true;
  } catch (error) {
    if (errorCode(error) === 'ESRCH') return false;
    throw error;
  }
}

export function isProcessGroupAlive(groupId: number): boolean {
  return signalGroup(groupId, 0);
}

/**
 * Ends a whole process group: SIGTERM first, so that programs can clean up, then SIGKILL for
 * whatever is still there after the grace period. Killing the group, not only its leader,
 * also ends background jobs and pipelines the command started.
 */
export async function killProcessGroup(
  groupId: number,
  graceMs: number = TERMINATE_GRACE_MS,
): Promise<void> {
  if (!signalGroup(groupId, 'SIGTERM')) return;
  for (let waited = 0; waited < graceMs; waited += POLL_INTERVAL_MS) {
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
    if (!isProcessGroupAlive(groupId)) return;
  }
  signalGroup(groupId, 'SIGKILL');
}
