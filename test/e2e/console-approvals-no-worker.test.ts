/**
 * The operator console answers approvals with no worker running (R22): a job waits for a
 * decision, its `dar worker` stops, and `dar ui` still lists the waiting call and takes the
 * decision (through a workflow-only worker of its own, as `dar approvals` does) instead of
 * waiting for a worker forever. A worker started afterwards finishes the job; the decision is
 * recorded once, by `console`.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dar, describeResult, killLeftoverDars, startDar, type DarProcess } from './support/dar.js';
import { finalTurn, makeTempDir, removeDir, writeScript } from './support/files.js';
import { jobEvents, waitForCompletedJob } from './support/jobs.js';
import { stopServer } from './support/temporal.js';
import { waitFor } from './support/wait.js';

const root = makeTempDir('console-no-worker');
const stateDir = join(root, 'state');
const workspace = join(root, 'workspace');
const jobId = `console-no-worker-${process.pid}`;
const options = { stateDir, env: { DAR_TASK_QUEUE: `console-no-worker-${process.pid}` } };

afterAll(async () => {
  await killLeftoverDars();
  await stopServer(stateDir);
  removeDir(root);
});

function startWorker(): DarProcess {
  return startDar(['worker'], { ...options, timeoutMs: 170_000 });
}

test('R22: with no worker running, the console lists a waiting call and takes its decision once', async () => {
  mkdirSync(workspace);
  const script = writeScript(root, 'script.json', [
    {
      content: [
        {
          type: 'toolCall',
          id: 'ship',
          name: 'bash',
          arguments: { command: 'echo ok > ship.log' },
        },
      ],
      stopReason: 'toolUse',
    },
    finalTurn('Shipped.'),
  ]);
  const policy = join(root, 'policy.json');
  writeFileSync(
    policy,
    JSON.stringify({ rules: [{ tool: 'bash', reason: 'shipping needs a yes', approve: true }] }),
  );
  const start = await dar(
    [
      'run',
      'ship it',
      '--detach',
      '--id',
      jobId,
      '--model',
      `scripted:${script}`,
      '--policy',
      policy,
    ],
    { ...options, cwd: workspace, timeoutMs: 90_000 },
  );
  expect({ code: start.code, output: describeResult(start) }).toMatchObject({ code: 0 });

  const worker = startWorker();
  await waitFor(
    'the call to wait for approval',
    async () => {
      const listed = await dar(['approvals', '--json'], { ...options, timeoutMs: 60_000 });
      return listed.stdout.includes('"toolCallId":"ship"');
    },
    { timeoutMs: 90_000, intervalMs: 1000 },
  );
  worker.signal('SIGTERM');
  await worker.done;

  const ui = startDar(['ui'], { ...options, timeoutMs: 170_000 });
  const line = await waitFor(
    'dar ui to print its address',
    () => ui.stdout.split('\n').find((text) => text.startsWith('Operator console: ')),
    { timeoutMs: 90_000 },
  );
  const address = new URL(line.slice('Operator console: '.length));
  const headers = {
    Authorization: `Bearer ${address.searchParams.get('token') ?? ''}`,
    Origin: address.origin,
    'Content-Type': 'application/json',
  };

  const listed = await fetch(new URL('/api/approvals', address), {
    headers,
    signal: AbortSignal.timeout(60_000),
  });
  expect(listed.status).toBe(200);
  const { approvals } = (await listed.json()) as { approvals: Record<string, unknown>[] };
  expect(approvals).toEqual([
    expect.objectContaining({ jobId, toolCallId: 'ship', reason: 'shipping needs a yes' }),
  ]);

  const approve = (): Promise<Response> =>
    fetch(new URL(`/api/jobs/${jobId}/approvals/ship/approve`, address), {
      method: 'POST',
      headers,
      body: JSON.stringify({ note: 'from the console' }),
      signal: AbortSignal.timeout(60_000),
    });
  const approved = await approve();
  expect(approved.status).toBe(200);
  // A second click is refused, also answered with no worker.
  expect((await approve()).status).toBe(409);
  // The job's own list, asked again through the worker the console keeps meanwhile: empty now.
  const jobList = await fetch(new URL(`/api/jobs/${jobId}/approvals`, address), {
    headers,
    signal: AbortSignal.timeout(60_000),
  });
  expect(jobList.status).toBe(200);
  expect(((await jobList.json()) as { approvals: unknown[] }).approvals).toEqual([]);

  ui.signal('SIGINT');
  await ui.done;
  const finisher = startWorker();
  const status = await waitForCompletedJob(jobId, options, 120_000);
  expect(status.stopReason).toBe('stop');
  finisher.signal('SIGTERM');
  await finisher.done;
  const events = await jobEvents(jobId, options);
  const decided = events.filter((event) => event.type === 'approval_decided');
  expect(decided.map(({ toolCallId, decision, by }) => ({ toolCallId, decision, by }))).toEqual([
    { toolCallId: 'ship', decision: 'approve', by: 'console' },
  ]);
  const ended = events.filter((event) => event.type === 'tool_execution_end');
  expect(ended).toEqual([expect.objectContaining({ toolCallId: 'ship', isError: false })]);
  expect(readFileSync(join(workspace, 'ship.log'), 'utf8')).toBe('ok\n');
}, 400_000);
