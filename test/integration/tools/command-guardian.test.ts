/**
 * A worker that dies while a bash call runs (SIGKILL, a crash, the OOM killer) takes the call's
 * command with it: the job is told the call was interrupted and goes on, so a command left
 * running as an orphan could run twice at once when the model retries it. Real processes: a
 * Node process runs the built `runCommand` and is SIGKILLed mid-command.
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { groupMembers, processGroupOf, readPid, signalGroup } from '../../e2e/support/processes.js';
import { sleep, waitFor } from '../../e2e/support/wait.js';

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

/** Whether a process group has a running member (zombies do not count). */
function groupIsRunning(group: number): boolean {
  return groupMembers(group).length > 0;
}

test('R24: the command of a worker killed mid-call is ended within seconds, and does not finish its work', async () => {
  const pidFile = join(folder, 'shell.pid');
  const marker = join(folder, 'finished');
  const worker = spawn(
    process.execPath,
    [RUNNER, BUILT_RUN_COMMAND, folder, `echo $$ > ${pidFile}; sleep 6; echo done > ${marker}`],
    { stdio: 'ignore' },
  );
  const group = await waitFor('the command to start', () => readPid(pidFile), {
    timeoutMs: 20_000,
    intervalMs: 50,
  });
  groups.push(group);
  expect(groupIsRunning(group)).toBe(true);

  worker.kill('SIGKILL');
  await once(worker, 'exit');
  // Within 5 s, or the wait fails.
  await waitFor('the orphaned group to end', () => !groupIsRunning(group), {
    timeoutMs: 5_000,
    intervalMs: 50,
  });
  // Had it run on, the command would have written its marker 6 s after it started.
  await sleep(7_000);
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
  const group = processGroupOf(readPid(pidFile)!)!;
  groups.push(group);
  // The runner has exited (its worker is gone): the guardian was released, not fired.
  await sleep(3_000);
  expect(groupIsRunning(group)).toBe(true);
  const { stdout: guardians } = await run('ps', ['-eo', 'args']);
  expect(
    guardians.split('\n').filter((line) => line.includes(`dar-tool-guardian ${group}`)),
  ).toEqual([]);
}, 30_000);
