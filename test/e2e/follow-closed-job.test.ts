/**
 * A job that closes without writing its last events (terminated by an operator in the middle
 * of a tool call) must not leave its watchers waiting for an `agent_end` that will never come:
 * `dar events --follow` already attached, one started afterwards, and `dar run` watching in the
 * foreground all stop within seconds and say how the job ended. Before, each polled the store
 * for ever.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { dar, killLeftoverDars, startDar, type DarProcess } from './support/dar.js';
import { expectExit } from './support/expect-exit.js';
import { bashTurn, finalTurn, makeTempDir, removeDir, writeScript } from './support/files.js';
import { groupMembers, readPid, signalGroup } from './support/processes.js';
import { connectToEmbeddedServer, readServerJson, stopServer } from './support/temporal.js';
import { waitFor } from './support/wait.js';

const root = makeTempDir('follow-closed');
const stateDir = join(root, 'state');
const workspace = join(root, 'workspace');
const environment = { DAR_TASK_QUEUE: `follow-closed-${process.pid}` };
const toolGroups: number[] = [];

beforeAll(() => {
  mkdirSync(workspace, { recursive: true });
});

afterAll(async () => {
  await killLeftoverDars();
  for (const group of toolGroups) signalGroup(group, 'SIGKILL');
  await stopServer(stateDir);
  expect(readServerJson(stateDir)).toBeUndefined();
  removeDir(root);
});

/** `dar run` in the foreground on this file's server and workspace. */
function startRun(prompt: string, jobId: string, script: string, timeoutMs: number): DarProcess {
  return startDar(
    [
      'run',
      prompt,
      '--id',
      jobId,
      '--model',
      `scripted:${script}`,
      '--workspace',
      workspace,
      '--state-dir',
      stateDir,
    ],
    { env: environment, timeoutMs },
  );
}

test('a job terminated during a tool call: dar run and both dar events --follow stop within seconds, exit 1, and say it was terminated', async () => {
  const script = writeScript(root, 'slow.json', [
    bashTurn('slow-call', 'echo $$ > shell.pid; sleep 120'),
    finalTurn('Never reached.'),
  ]);
  const jobId = `follow-terminated-${process.pid}`;
  const run = startRun('take your time', jobId, script, 150_000);
  const shellPid = await waitFor(
    'the bash call to start',
    () => {
      if (!run.isRunning) throw new Error(`dar run exited:\n${run.stderr}`);
      return readPid(join(workspace, 'shell.pid'));
    },
    { timeoutMs: 90_000 },
  );
  toolGroups.push(shellPid);
  const attached: DarProcess = startDar(['events', jobId, '--follow', '--state-dir', stateDir], {
    env: environment,
    timeoutMs: 120_000,
  });
  await waitFor('the attached follower to print the tool call', () =>
    attached.stdout.includes('sleep 120'),
  );

  const { client, close } = await connectToEmbeddedServer(stateDir);
  try {
    await client.workflow.getHandle(jobId).terminate('stopped by an operator');
  } finally {
    await close();
  }
  const terminatedAt = Date.now();

  const [fromRun, fromAttached] = await Promise.all([run.done, attached.done]);
  const later = await dar(['events', jobId, '--follow', '--state-dir', stateDir], {
    env: environment,
    timeoutMs: 60_000,
  });
  // Each stops once Temporal says the job closed (asked about once a second while no event comes).
  expect(Date.now() - terminatedAt).toBeLessThan(30_000);
  expect(later.ms).toBeLessThan(20_000);

  expectExit(fromRun, 1);
  for (const follower of [fromAttached, later]) {
    expectExit(follower, 1);
    expect(follower.stderr).toContain(
      `Job ${jobId} ended (terminated) without an agent_end event.`,
    );
    expect(follower.stdout).toContain('sleep 120');
  }

  signalGroup(shellPid, 'SIGKILL');
  await waitFor('the bash command to end', () => groupMembers(shellPid).length === 0);
}, 180_000);

test('dar events --follow --after past the last event of a running job exits 0 when the job ends normally, its agent_end before the cursor', async () => {
  const script = writeScript(root, 'slow-answer.json', [finalTurn('A slow answer.', 8000)]);
  const jobId = `follow-after-end-${process.pid}`;
  const run = startRun('answer slowly', jobId, script, 120_000);
  await waitFor(
    'the job to start its run',
    () => {
      if (!run.isRunning) throw new Error(`dar run exited:\n${run.stderr}`);
      return run.stdout.includes('agent started');
    },
    { timeoutMs: 90_000 },
  );
  const follower = await dar(
    ['events', jobId, '--follow', '--after', '1000', '--state-dir', stateDir],
    { env: environment, timeoutMs: 60_000 },
  );
  expectExit(await run.done, 0);
  expectExit(follower, 0);
  expect(follower.stderr).not.toContain('without an agent_end event');
}, 150_000);
