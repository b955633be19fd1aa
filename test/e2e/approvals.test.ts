/**
 * Durable approval through the CLI (R22): `dar run --detach --policy` with an approval rule, a
 * `dar worker` SIGKILLed while two calls wait, the embedded server stopped and started again,
 * then `dar approvals`, `dar deny` (answered with no worker running) and `dar approve`. Each
 * decision is recorded once; a second one and an unknown call exit 2.
 */
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { dar, killLeftoverDars, linesOf, startDar, type DarProcess } from './support/dar.js';
import { expectExit } from './support/expect-exit.js';
import { finalTurn, makeTempDir, removeDir, writeScript } from './support/files.js';
import { jobEvents, parseJsonLines, waitForCompletedJob } from './support/jobs.js';
import {
  connectToEmbeddedServer,
  jobResult,
  readHistory,
  readServerJson,
  stopServer,
} from './support/temporal.js';
import { waitFor } from './support/wait.js';

const root = makeTempDir('approvals');
const stateDir = join(root, 'state');
const workspace = join(root, 'workspace');
const jobId = `approvals-${process.pid}`;
const options = { stateDir };

function startWorker(): DarProcess {
  return startDar(['worker'], { ...options, timeoutMs: 170_000 });
}

/** `dar approvals --json`, once it lists the job's calls (visibility follows within moments). */
function pendingCalls(count: number): Promise<Record<string, unknown>[]> {
  return waitFor(
    `${count} call(s) to wait for approval`,
    async () => {
      const listed = await dar(['approvals', '--json'], { ...options, timeoutMs: 90_000 });
      expectExit(listed, 0);
      const rows = parseJsonLines(listed.stdout).filter((row) => row.jobId === jobId);
      return rows.length === count && rows;
    },
    { timeoutMs: 90_000, intervalMs: 1000 },
  );
}

beforeAll(() => {
  mkdirSync(workspace);
});

afterAll(async () => {
  await killLeftoverDars();
  await stopServer(stateDir);
  expect(readServerJson(stateDir)).toBeUndefined();
  removeDir(root);
});

test('R22: approvals survive a worker SIGKILL and a server restart; dar approve / deny decide each call once', async () => {
  const script = writeScript(root, 'script.json', [
    {
      content: [
        {
          type: 'toolCall',
          id: 'ship',
          name: 'bash',
          arguments: { command: 'echo shipped >> ship.log' },
        },
        {
          type: 'toolCall',
          id: 'wipe',
          name: 'bash',
          arguments: { command: 'echo wiped >> wipe.log' },
        },
      ],
      stopReason: 'toolUse',
    },
    finalTurn('Decided.'),
  ]);
  const policy = join(root, 'policy.json');
  writeFileSync(
    policy,
    JSON.stringify({
      rules: [{ tool: 'bash', reason: 'shell commands need a look', approve: true }],
    }),
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
    { ...options, cwd: workspace },
  );
  expectExit(start, 0);

  const firstWorker = startWorker();
  const waiting = await pendingCalls(2);
  expect(waiting.map((row) => row.toolCallId).sort()).toEqual(['ship', 'wipe']);
  expect(waiting[0]).toMatchObject({ toolName: 'bash', reason: 'shell commands need a look' });

  firstWorker.signal('SIGKILL');
  expect((await firstWorker.done).signal).toBe('SIGKILL');
  expectExit(await stopServer(stateDir), 0);

  // The next command starts the server again; with no worker running, a workflow-only one
  // answers the query, and the calls are still there.
  const human = await dar(['approvals'], { ...options, timeoutMs: 90_000 });
  expectExit(human, 0);
  expect(human.stdout).toContain(`${jobId}  call ship  bash  waiting`);
  expect(human.stdout).toContain('reason: shell commands need a look');
  expect(human.stdout).toContain('args:   {"command":"echo wiped >> wipe.log"}');
  await pendingCalls(2);

  const denied = await dar(['deny', jobId, 'wipe', '--note', 'not today', '--by', 'ops'], {
    ...options,
    timeoutMs: 90_000,
  });
  expectExit(denied, 0);
  expect(linesOf(denied.stdout)).toEqual([`Denied call wipe (bash) of ${jobId}`]);

  const again = await dar(['approve', jobId, 'wipe'], { ...options, timeoutMs: 90_000 });
  expectExit(again, 2);
  expect(again.stderr).toMatch(/dar approve: call wipe of job \S+ was already denied by ops at /);
  const unknown = await dar(['approve', jobId, 'nope'], { ...options, timeoutMs: 90_000 });
  expectExit(unknown, 2);
  expect(unknown.stderr).toContain(`has no call nope waiting for approval`);

  const secondWorker = startWorker();
  const approved = await dar(['approve', jobId, 'ship', '--note', 'go'], {
    ...options,
    timeoutMs: 90_000,
  });
  expectExit(approved, 0);
  const status = await waitForCompletedJob(jobId, options, 120_000);
  expect(status.stopReason).toBe('stop');

  expect(readFileSync(join(workspace, 'ship.log'), 'utf8')).toBe('shipped\n');
  expect(existsSync(join(workspace, 'wipe.log'))).toBe(false);

  const events = await jobEvents(jobId, options);
  const decided = events.filter((event) => event.type === 'approval_decided');
  expect(
    decided.map(({ toolCallId, decision, by, note }) => ({ toolCallId, decision, by, note })),
  ).toEqual([
    { toolCallId: 'wipe', decision: 'deny', by: 'ops', note: 'not today' },
    expect.objectContaining({ toolCallId: 'ship', decision: 'approve', note: 'go' }),
  ]);
  const { client, close } = await connectToEmbeddedServer(stateDir);
  try {
    const result = await jobResult(client, stateDir, jobId);
    const wipe = result.messages.find(
      (message) => message.role === 'toolResult' && message.toolCallId === 'wipe',
    );
    expect(wipe).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'Tool bash was denied by ops: not today' }],
    });
    // Each decision once in the history: refused ones leave no trace.
    const history = await readHistory(client, jobId);
    expect(
      history.filter((event) => event.kind === 'workflowExecutionUpdateAccepted'),
    ).toHaveLength(2);
  } finally {
    await close();
  }

  // Once the job has ended, a late decision says how each call was decided while it ran.
  const late = await dar(['deny', jobId, 'wipe'], { ...options, timeoutMs: 90_000 });
  expectExit(late, 2);
  expect(late.stderr).toMatch(
    new RegExp(
      `^dar deny: job ${jobId} is no longer running; its call wipe \\(bash\\) was denied by ops, at 20\\d\\d-`,
    ),
  );
  const lateUnknown = await dar(['approve', jobId, 'nope'], { ...options, timeoutMs: 90_000 });
  expectExit(lateUnknown, 2);
  expect(lateUnknown.stderr).toContain(
    `job ${jobId} is no longer running, and no call nope of it waited for approval`,
  );

  secondWorker.signal('SIGTERM');
  expectExit(await secondWorker.done, 0);
}, 300_000);
