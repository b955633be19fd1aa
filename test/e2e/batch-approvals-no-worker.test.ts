/**
 * `dar deny --batch ID --all` with no worker running (R22): two jobs of a batch wait for a
 * decision, their `dar worker` is SIGKILLed, and the bulk decision still lists and decides both
 * calls (through one workflow-only worker of its own) instead of waiting for a worker forever.
 * A worker started afterwards finishes the batch; no denied command ran.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dar, killLeftoverDars, linesOf, startDar, type DarProcess } from './support/dar.js';
import { expectExit } from './support/expect-exit.js';
import { finalTurn, makeTempDir, removeDir, writeScript } from './support/files.js';
import { jobEvents, parseJsonLines } from './support/jobs.js';
import { stopServer } from './support/temporal.js';
import { waitFor } from './support/wait.js';

const root = makeTempDir('batch-approvals');
const stateDir = join(root, 'state');
const workspace = join(root, 'workspace');
const batchId = `bulk-deny-${process.pid}`;
const options = { stateDir, env: { DAR_TASK_QUEUE: `batch-approvals-${process.pid}` } };

afterAll(async () => {
  await killLeftoverDars();
  await stopServer(stateDir);
  removeDir(root);
});

function startWorker(): DarProcess {
  return startDar(['worker'], { ...options, timeoutMs: 170_000 });
}

test('R22: dar deny --batch ID --all decides every waiting call of the batch with no worker running', async () => {
  mkdirSync(workspace);
  const policy = join(root, 'policy.json');
  writeFileSync(
    policy,
    JSON.stringify({ rules: [{ tool: 'bash', reason: 'shell needs a look', approve: true }] }),
  );
  const tasks = ['alpha', 'beta'].map((name) => {
    const script = writeScript(root, `${name}.json`, [
      {
        content: [
          {
            type: 'toolCall',
            id: `call-${name}`,
            name: 'bash',
            arguments: { command: `echo ran > ${name}.log` },
          },
        ],
        stopReason: 'toolUse',
      },
      finalTurn(`${name} done.`),
    ]);
    return { id: name, prompt: `run ${name}`, model: `scripted:${script}`, policy, workspace };
  });
  const taskFile = join(root, 'tasks.jsonl');
  writeFileSync(taskFile, tasks.map((task) => JSON.stringify(task)).join('\n') + '\n');
  const results = join(root, 'results.jsonl');

  // The batch only starts and watches its jobs; `dar worker` processes run them.
  const batch = startDar(
    ['batch', taskFile, '--no-worker', '--batch-id', batchId, '--results', results],
    { ...options, timeoutMs: 280_000 },
  );
  const firstWorker = startWorker();
  await waitFor(
    'both calls of the batch to wait for approval',
    async () => {
      const listed = await dar(['approvals', '--batch', batchId, '--json'], {
        ...options,
        timeoutMs: 60_000,
      });
      expectExit(listed, 0);
      return parseJsonLines(listed.stdout).length === 2;
    },
    { timeoutMs: 120_000, intervalMs: 1000 },
  );
  firstWorker.signal('SIGKILL');
  expect((await firstWorker.done).signal).toBe('SIGKILL');

  const started = Date.now();
  const denied = await dar(['deny', '--batch', batchId, '--all', '--note', 'not now'], {
    ...options,
    timeoutMs: 90_000,
  });
  expectExit(denied, 0);
  expect(linesOf(denied.stdout).sort()).toEqual([
    expect.stringMatching(/^Denied call call-alpha \(bash\) of /),
    expect.stringMatching(/^Denied call call-beta \(bash\) of /),
  ]);
  // Decided by a worker of its own, not after some timeout of a wait for one.
  expect(Date.now() - started).toBeLessThan(60_000);

  const again = await dar(['approvals', '--batch', batchId], { ...options, timeoutMs: 60_000 });
  expectExit(again, 0);
  expect(again.stdout).toContain('No tool calls wait for approval.');

  const secondWorker = startWorker();
  expectExit(await batch.done, 0);
  secondWorker.signal('SIGTERM');
  expectExit(await secondWorker.done, 0);

  const lines = parseJsonLines(readFileSync(results, 'utf8'));
  expect(lines.map(({ id, status, text }) => ({ id, status, text }))).toEqual(
    expect.arrayContaining([
      { id: 'alpha', status: 'completed', text: 'alpha done.' },
      { id: 'beta', status: 'completed', text: 'beta done.' },
    ]),
  );
  for (const line of lines) {
    const events = await jobEvents(String(line.workflowId), options);
    const decided = events.filter((event) => event.type === 'approval_decided');
    expect(decided).toEqual([expect.objectContaining({ decision: 'deny', note: 'not now' })]);
  }
  expect(existsSync(join(workspace, 'alpha.log'))).toBe(false);
  expect(existsSync(join(workspace, 'beta.log'))).toBe(false);
}, 300_000);
