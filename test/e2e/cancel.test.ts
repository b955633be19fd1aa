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

test('dar cancel with no worker running says the job stops once a worker runs it; dar worker then ends it cancelled', async () => {
  // A queue of its own: the worker of `dar run` above polled the default one lately.
  const taskQueue = `no-worker-yet-${process.pid}`;
  const env = { DAR_TASK_QUEUE: taskQueue };
  const script = writeScript(root, 'no-worker.json', [finalTurn('Answered.')]);
  const started = await dar(
    ['run', 'answer', '--detach', '--model', `scripted:${script}`, '--state-dir', stateDir],
    { cwd: workspace, env, timeoutMs: 60_000 },
  );
  expectExit(started, 0);
  const detachedId = started.stdout.trim();
  expect(linesOf(started.stderr)).toContain(
    `No worker takes jobs from task queue ${taskQueue} now: \`dar worker\` carries job ${detachedId} on.`,
  );

  const cancel = await dar(['cancel', detachedId, '--state-dir', stateDir], { timeoutMs: 60_000 });
  expectExit(cancel, 0);
  expect(cancel.stdout).toBe(`Cancellation requested for ${detachedId}\n`);
  expect(linesOf(cancel.stderr)).toContain(
    `No worker takes jobs from task queue ${taskQueue} now: job ${detachedId} stops when \`dar worker\` carries it on.`,
  );

  // The request was kept: the first worker to run the job ends it cancelled.
  const worker = startDar(['worker', '--state-dir', stateDir], { env, timeoutMs: 120_000 });
  try {
    await waitFor(
      'the job to end',
      async () => {
        const status = await dar(['status', detachedId, '--state-dir', stateDir]);
        return status.stdout.includes('outcome:    cancelled');
      },
      { timeoutMs: 90_000, intervalMs: 1000 },
    );
  } finally {
    worker.signal('SIGTERM');
    await worker.done;
  }
}, 180_000);
