/**
 * R21 through the CLI: `dar cancel` from another process aborts a job that `dar run` watches
 * while its bash tool runs `sleep 60`. The tool's processes are stopped, the run ends with
 * `Operation aborted` and `agent_end`, no new turn starts, and `dar run` exits with 130.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { dar, killLeftoverDars, linesOf, reportTiming, startDar } from './support/dar.js';
import { expectExit } from './support/expect-exit.js';
import { bashTurn, finalTurn, makeTempDir, removeDir, writeScript } from './support/files.js';
import {
  groupMembers,
  isRunning,
  processGroupOf,
  readPid,
  signalGroup,
} from './support/processes.js';
import { readServerJson, stopServer } from './support/temporal.js';
import { waitFor } from './support/wait.js';

const root = makeTempDir('cancel');
const stateDir = join(root, 'state');
const workspace = join(root, 'workspace');
const jobId = `r21-cancel-${process.pid}`;
/** Process groups of tool commands, killed in afterAll should a failed test leave them. */
const toolGroups: number[] = [];

beforeAll(() => {
  mkdirSync(workspace);
});

afterAll(async () => {
  await killLeftoverDars();
  for (const group of toolGroups) signalGroup(group, 'SIGKILL');
  await stopServer(stateDir);
  expect(readServerJson(stateDir)).toBeUndefined();
  removeDir(root);
});

test('R21: dar cancel stops the running bash tool; dar run exits 130 after Operation aborted and agent_end', async () => {
  const script = writeScript(root, 'script.json', [
    // The shell (leader of the tool's process group) records its pid and the sleep's.
    bashTurn('sleep-call', 'sleep 60 & echo $! > sleep.pid; echo $$ > shell.pid; wait'),
    // Must never run: a cancelled job starts no new turn.
    bashTurn('second-turn', 'touch second-turn-ran'),
    finalTurn('Not reached.'),
  ]);
  const run = startDar(
    ['run', 'sleep a minute', '--id', jobId, '--model', `scripted:${script}`],
    // The workspace is the working directory (the --workspace default).
    { cwd: workspace, stateDir, timeoutMs: 150_000 },
  );

  const shellPid = await waitFor(
    'the bash tool to start',
    () => readPid(join(workspace, 'shell.pid')),
    { timeoutMs: 90_000 },
  );
  const sleepPid = await waitFor('the sleep pid', () => readPid(join(workspace, 'sleep.pid')));
  const group = processGroupOf(shellPid);
  expect(group).toBe(shellPid);
  toolGroups.push(shellPid);
  expect(isRunning(sleepPid)).toBe(true);

  const cancelled = Date.now();
  const cancel = await dar(['cancel', jobId, '--state-dir', stateDir]);
  expectExit(cancel, 0);
  expect(cancel.stdout).toBe(`Cancellation requested for ${jobId}\n`);

  const result = await run.done;
  const exitAfterCancel = Date.now() - cancelled;
  reportTiming('R21: dar run exit after dar cancel was sent', exitAfterCancel);
  expectExit(result, 130);
  expect(exitAfterCancel).toBeLessThan(15_000);

  // The tool's processes are gone: the shell, its sleep, the whole group.
  expect(isRunning(sleepPid)).toBe(false);
  expect(isRunning(shellPid)).toBe(false);
  expect(groupMembers(shellPid)).toEqual([]);

  const lines = linesOf(result.stdout);
  expect(lines).toContain(
    '  > bash {"command":"sleep 60 & echo $! > sleep.pid; echo $$ > shell.pid; wait"}',
  );
  expect(lines).toContain('  x bash: Operation aborted');
  expect(lines.at(-1)).toBe('agent finished');
  expect(lines).not.toContain('-- turn 2 --');
  expect(existsSync(join(workspace, 'second-turn-ran'))).toBe(false);
});

test('R21: after the job closed, dar events still shows Operation aborted and agent finished', async () => {
  // No worker runs now: the CLI answers with a workflow-only worker of its own.
  const result = await dar(['events', jobId, '--state-dir', stateDir], { timeoutMs: 90_000 });
  reportTiming('R21: dar events on the cancelled job, no worker', result.ms);
  expectExit(result, 0);
  const lines = linesOf(result.stdout);
  expect(lines[0]).toBe('agent started');
  expect(lines).toContain('  x bash: Operation aborted');
  expect(lines.at(-1)).toBe('agent finished');
  expect(lines.filter((line) => line.startsWith('-- turn '))).toEqual(['-- turn 1 --']);
});

test('dar cancel, steer and follow-up on the ended job say it has ended (exit 2) instead of succeeding', async () => {
  const cancel = await dar(['cancel', jobId, '--state-dir', stateDir], { timeoutMs: 60_000 });
  expectExit(cancel, 2);
  expect(cancel.stdout).toBe('');
  expect(cancel.stderr).toMatch(
    new RegExp(`^dar cancel: Job ${jobId} has ended \\(\\w+\\): nothing to cancel\\n$`),
  );
  for (const kind of ['steer', 'follow-up']) {
    const sent = await dar([kind, jobId, 'one more thing', '--state-dir', stateDir], {
      timeoutMs: 60_000,
    });
    expectExit(sent, 2);
    expect(sent.stderr).toContain(`Job ${jobId} has ended (`);
    expect(sent.stderr).toContain('it takes no more messages');
  }
});

test('dar status on the cancelled job says its outcome: cancelled', async () => {
  const status = await dar(['status', jobId, '--state-dir', stateDir], { timeoutMs: 60_000 });
  expectExit(status, 0);
  expect(status.stdout).toContain('outcome:    cancelled\n');
});
