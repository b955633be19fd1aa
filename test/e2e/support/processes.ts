import { readdirSync, readFileSync } from 'node:fs';

function errnoCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * Whether the process runs: it exists and is not a zombie. An orphan's parent (a container's
 * init) may be slow to reap it; an exited process counts as gone even before it is reaped.
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if (errnoCode(error) !== 'EPERM') return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** The process group id of a process, from /proc (undefined when it is gone). */
export function processGroupOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[2]);
  } catch {
    return undefined;
  }
}

/** Pids of the running (non-zombie) members of a process group. */
export function groupMembers(groupId: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => processGroupOf(pid) === groupId && isRunning(pid));
}

/** Sends a signal to a whole process group; false when the group is gone. */
export function signalGroup(groupId: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-groupId, signal);
    return true;
  } catch (error) {
    if (errnoCode(error) === 'ESRCH') return false;
    throw error;
  }
}

/** Reads a pid a test command wrote to a file ("echo $$ > shell.pid"). */
export function readPid(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
