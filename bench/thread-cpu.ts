import { readdirSync, readFileSync } from 'node:fs';

/** CPU milliseconds of each group of threads, as Linux counts them (`/proc`, 10 ms ticks). */
export type CpuByGroup = Record<string, number>;

const TICK_MS = 10;

function readStat(path: string): { name: string; ms: number; parent: number } | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined; // the thread or process ended meanwhile
  }
  // `pid (comm) state ppid ...`: comm may hold spaces, so split after its closing parenthesis.
  const close = text.lastIndexOf(')');
  const name = text.slice(text.indexOf('(') + 1, close);
  const fields = text.slice(close + 2).split(' ');
  const user = Number(fields[11]);
  const system = Number(fields[12]);
  return { name, ms: (user + system) * TICK_MS, parent: Number(fields[1]) };
}

/** Threads named like the main one that exist before the worker: V8's and libuv's pools. */
let poolThreads: Set<string> | undefined;

/**
 * Processes outside this process tree that count as `server` too, with their children: a
 * cluster's Temporal server and PostgreSQL (see `countAsServer`).
 */
const serverRoots = new Set<number>();

/** Counts these processes and their children as the `server` group from now on. */
export function countAsServer(pids: readonly number[]): void {
  for (const pid of pids) serverRoots.add(pid);
}

/** Stops counting processes named by `countAsServer` (their cluster is gone). */
export function forgetServerProcesses(): void {
  serverRoots.clear();
}

/** Call before the worker is created: threads made later are its workflow threads. */
export function markPoolThreads(): void {
  poolThreads = new Set(readdirSync('/proc/self/task'));
}

/**
 * This process's threads by role, and its child processes (the Temporal dev server): `main`
 * (the event loop: client, activities, sinks), `workflow` (the worker's workflow threads: made
 * after `markPoolThreads`, named like the main one, as Node names all its threads), `pools`
 * (V8's compiler and garbage collector threads, libuv's file system pool), `core` (Temporal
 * core's Rust threads, which have names of their own), `server` (the dev servers this process
 * started, or a cluster's server and database processes, `countAsServer`: on a cluster that
 * includes the job store's PostgreSQL work).
 */
export function threadCpu(): CpuByGroup {
  const groups: CpuByGroup = { main: 0, workflow: 0, pools: 0, core: 0, server: 0 };
  const add = (group: string, ms: number) => (groups[group] = (groups[group] ?? 0) + ms);
  const own = process.pid;
  for (const tid of readdirSync('/proc/self/task')) {
    const stat = readStat(`/proc/self/task/${tid}/stat`);
    if (!stat) continue;
    if (Number(tid) === own) add('main', stat.ms);
    else if (stat.name !== 'node') add('core', stat.ms);
    else if (poolThreads?.has(tid) ?? true) add('pools', stat.ms);
    else add('workflow', stat.ms);
  }
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(`/proc/${entry}/stat`);
    if (!stat) continue;
    const pid = Number(entry);
    if (stat.parent === own || serverRoots.has(pid) || serverRoots.has(stat.parent)) {
      add('server', stat.ms);
    }
  }
  return groups;
}

/** `after - before`, per group. */
export function cpuSince(before: CpuByGroup, after: CpuByGroup): CpuByGroup {
  return Object.fromEntries(
    Object.entries(after).map(([group, ms]) => [group, ms - (before[group] ?? 0)]),
  );
}
