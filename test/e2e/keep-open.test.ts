/**
 * `dar run --keep-open DURATION`: the job stays open after its run ends, waiting for a follow-up
 * (R20), which starts the next run; `dar run` in the foreground watches every run until the job
 * closes. Bad durations are usage errors, with nothing started.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { dar, killLeftoverDars, startDar } from './support/dar.js';
import { expectExit } from './support/expect-exit.js';
import { finalTurn, makeTempDir, removeDir, writeScript } from './support/files.js';
import { jobStatus, parseJsonLines } from './support/jobs.js';
import { connectToEmbeddedServer, readServerJson, stopServer } from './support/temporal.js';
import { waitFor } from './support/wait.js';

const root = makeTempDir('keep-open');
const stateDir = join(root, 'state');
const workspace = join(root, 'workspace');
const environment = { DAR_TASK_QUEUE: `keep-open-${process.pid}` };

function eventsOf(stdout: string): Array<Record<string, unknown>> {
  // Only whole lines: the process may be writing the next one.
  return parseJsonLines(stdout.slice(0, stdout.lastIndexOf('\n') + 1));
}

function userTexts(events: Array<Record<string, unknown>>): unknown[] {
  return events
    .filter((event) => event.type === 'message_end')
    .map((event) => event.message as { role: string; content: unknown })
    .filter((message) => message.role === 'user')
    .map((message) => message.content);
}

beforeAll(() => {
  mkdirSync(workspace, { recursive: true });
});

afterAll(async () => {
  await killLeftoverDars();
  await stopServer(stateDir);
  removeDir(root);
});

test('a job started with dar run --keep-open 10m waits after its run for a follow-up, which starts a second run that dar run also prints', async () => {
  const script = writeScript(root, 'two-runs.json', [
    finalTurn('First answer.'),
    finalTurn('Second answer.'),
  ]);
  const jobId = `kept-open-${process.pid}`;
  const run = startDar(
    [
      'run',
      'first question',
      '--keep-open',
      '10m',
      '--id',
      jobId,
      '--json',
      '--model',
      `scripted:${script}`,
      '--workspace',
      workspace,
      '--state-dir',
      stateDir,
    ],
    { env: environment, timeoutMs: 150_000 },
  );

  // The first run ends; the job does not: it waits for a message.
  await waitFor(
    'the first agent_end',
    () => eventsOf(run.stdout).some((event) => event.type === 'agent_end'),
    { timeoutMs: 90_000 },
  );
  const waiting = await waitFor(
    'the job to wait for a message',
    async () => {
      const status = await jobStatus(jobId, { stateDir, env: environment });
      return status.phase === 'waiting' && status;
    },
    { timeoutMs: 30_000, intervalMs: 500 },
  );
  expect(waiting.workflowStatus).toBe('RUNNING');
  expect(run.isRunning).toBe(true);
  // A follower that attaches while the job waits follows the next run, not the one that ended.
  const follower = startDar(['events', jobId, '--follow', '--json', '--state-dir', stateDir], {
    env: environment,
    timeoutMs: 90_000,
  });
  await waitFor('the follower to print the first run', () =>
    eventsOf(follower.stdout).some((event) => event.type === 'agent_end'),
  );
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect(follower.isRunning).toBe(true);

  const followUp = await dar(['follow-up', jobId, 'second question', '--state-dir', stateDir], {
    env: environment,
  });
  expectExit(followUp, 0);
  await waitFor(
    'the second agent_end',
    () => eventsOf(run.stdout).filter((event) => event.type === 'agent_end').length === 2,
    { timeoutMs: 60_000 },
  );
  const followed = await follower.done;
  expectExit(followed, 0);
  expect(eventsOf(followed.stdout).filter((event) => event.type === 'agent_end')).toHaveLength(2);
  expect(eventsOf(followed.stdout).at(-1)).toEqual(eventsOf(run.stdout).at(-1));
  const events = eventsOf(run.stdout);
  expect(events.filter((event) => event.type === 'agent_start')).toHaveLength(2);
  expect(userTexts(events)).toEqual(['first question', 'second question']);
  expect(JSON.stringify(events.at(-1))).toContain('Second answer.');
  expect(run.isRunning).toBe(true);

  // Cancelling closes the job: dar run sees it end and exits as cancelled.
  expectExit(await dar(['cancel', jobId, '--state-dir', stateDir], { env: environment }), 0);
  const finished = await run.done;
  expectExit(finished, 130);
  expect(eventsOf(finished.stdout).map((event) => event.seq)).toEqual(
    eventsOf(finished.stdout).map((_, index) => index + 1),
  );
}, 180_000);

test('dar run --keep-open stops watching and exits 1 when the waiting job is terminated (it closes without writing done)', async () => {
  const script = writeScript(root, 'one-run.json', [finalTurn('Only answer.')]);
  const jobId = `kept-open-terminated-${process.pid}`;
  const run = startDar(
    [
      'run',
      'a question',
      '--keep-open',
      '10m',
      '--id',
      jobId,
      '--json',
      '--model',
      `scripted:${script}`,
      '--workspace',
      workspace,
      '--state-dir',
      stateDir,
    ],
    { env: environment, timeoutMs: 120_000 },
  );
  await waitFor(
    'the agent_end',
    () => eventsOf(run.stdout).some((event) => event.type === 'agent_end'),
    { timeoutMs: 90_000 },
  );
  const { client, close } = await connectToEmbeddedServer(stateDir);
  try {
    await client.workflow.getHandle(jobId).terminate('stopped by an operator');
  } finally {
    await close();
  }
  const finished = await run.done;
  expectExit(finished, 1);
  expect(eventsOf(finished.stdout).at(-1)?.type).toBe('agent_end');
}, 150_000);

test.each([
  ['10', 'a number without a unit'],
  ['2d', 'days'],
  ['soon', 'a word'],
])('dar run --keep-open %s (%s) exits 2 naming the flag, and starts nothing', async (value) => {
  const result = await dar(
    [
      'run',
      'hello',
      '--keep-open',
      value,
      '--model',
      'scripted:examples/demo-script.json',
      '--workspace',
      workspace,
      '--state-dir',
      join(root, 'unused-state'),
    ],
    { env: environment },
  );
  expectExit(result, 2);
  expect(result.stderr).toContain(
    `dar run: --keep-open must be a duration such as 30s, 10m or 2h (a number and ms, s, m or h), not "${value}"`,
  );
  expect(result.stdout).toBe('');
  expect(readServerJson(join(root, 'unused-state'))).toBeUndefined();
});
