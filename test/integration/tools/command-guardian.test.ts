/**
 * A worker that dies while a bash call runs (SIGKILL, a crash, the OOM killer) takes the call's
 * command with it: the job is told the call was interrupted and goes on, so a command left
 * running as an orphan could run twice at once when the model retries it. Real processes: a
 * Node process runs the built `runCommand` and is SIGKILLed mid-command.
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const RUNNER = fileURLToPath(new URL('./command-runner.mjs', import.meta.url));
/** The built tool (`npm test` builds `dist/` first). */
const BUILT_RUN_COMMAND = fileURLToPath(
  new URL('../../../dist/tools/run-command.js', import.meta.url),
);

let folder: string;
const groups: number[] = [];

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'dar-command-guardian-'));
});

afterEach(async () => {
  for (const group of groups.splice(0)) signalGroup(group, 'SIGKILL');
  await rm(folder, { recursive: true, force: true });
});

function signalGroup(group: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-group, signal);
    return true;
  } catch {
    return false;
  }
}

/** A process's state letter and group id, from /proc (undefined once it is gone). */
function processStat(pid: string | number): { state: string; group: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', group: Number(fields[2]) };
  } catch {
    return undefined;
  }
}

/** Whether a process group has a running member (zombies do not count). */
function groupIsRunning(group: number): boolean {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .some((name) => {
      const stat = processStat(name);
      return stat !== undefined && stat.state !== 'Z' && stat.group === group;
    });
}

async function waitUntil(what: string, check: () => boolean, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Date.now() - started;
}

function readGroup(file: string): number | undefined {
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

test('R24: the command of a worker killed mid-call is ended within seconds, and does not finish its work', async () => {
  const pidFile = join(folder, 'shell.pid');
  const marker = join(folder, 'finished');
  const worker = spawn(
    process.execPath,
    [RUNNER, BUILT_RUN_COMMAND, folder, `echo $$ > ${pidFile}; sleep 6; echo done > ${marker}`],
    { stdio: 'ignore' },
  );
  let group: number | undefined;
  await waitUntil('the command to start', () => (group = readGroup(pidFile)) !== undefined, 20_000);
  groups.push(group!);
  expect(groupIsRunning(group!)).toBe(true);

  worker.kill('SIGKILL');
  await once(worker, 'exit');
  const endedAfter = await waitUntil(
    'the orphaned group to end',
    () => !groupIsRunning(group!),
    5_000,
  );
  expect(endedAfter).toBeLessThan(5_000);
  // Had it run on, the command would have written its marker 6 s after it started.
  await new Promise((resolve) => setTimeout(resolve, 7_000));
  expect(existsSync(marker)).toBe(false);
}, 30_000);

test('a command that ends normally leaves its background job running, and no guardian behind', async () => {
  const pidFile = join(folder, 'background.pid');
  const { stdout } = await run(process.execPath, [
    RUNNER,
    BUILT_RUN_COMMAND,
    folder,
    `sleep 30 & echo $! > ${pidFile}; echo started`,
  ]);
  expect(JSON.parse(stdout)).toMatchObject({ exitCode: 0, output: 'started\n' });
  // The background job is in the command's group (whose id is the shell's pid).
  const group = processStat(readGroup(pidFile)!)!.group;
  groups.push(group);
  // The runner has exited (its worker is gone): the guardian was released, not fired.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  expect(groupIsRunning(group)).toBe(true);
  const { stdout: guardians } = await run('ps', ['-eo', 'args']);
  expect(
    guardians.split('\n').filter((line) => line.includes(`dar-tool-guardian ${group}`)),
  ).toEqual([]);
}, 30_000);
