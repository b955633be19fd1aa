import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScriptedAnswer } from '../../../src/providers/model-script.js';
import { dar, killLeftovers, readResults, stopServer, temporaryFolder } from './batch-harness.js';

/**
 * `dar batch --max-turns`, `dar batch --retry-failed` and `dar status` through the real `dar`
 * command: embedded dev server, a worker inside `dar batch`, scripted model with usage.
 */
const folder = temporaryFolder('dar-batch-budgets-');
const stateDir = join(folder, 'state');

afterAll(async () => {
  await killLeftovers();
  stopServer(stateDir);
});

/** Turn n: a bash body that takes 400 ms, then appends n to `marks-<task>`; 100 tokens, 1 cent. */
function markAnswer(task: string, n: number): ScriptedAnswer {
  return {
    stopReason: 'toolUse',
    content: [
      {
        type: 'toolCall',
        id: `${task}-${n}`,
        name: 'bash',
        arguments: { command: `sleep 0.4 && echo ${n} >> marks-${task}` },
      },
    ],
    usage: { input: 60, output: 40, costUsd: 0.01 },
  };
}

const finalAnswer: ScriptedAnswer = {
  stopReason: 'stop',
  content: [{ type: 'text', text: 'finished' }],
  usage: { input: 5, output: 5, costUsd: 0 },
};

/** A batch file in `folder` whose task `id` follows `scripts[id]`. */
function writeBatch(name: string, scripts: Record<string, ScriptedAnswer[]>): string {
  const lines = Object.entries(scripts).map(([id, answers]) => {
    writeFileSync(join(folder, `${name}-${id}.json`), JSON.stringify(answers));
    return JSON.stringify({
      id,
      prompt: `task ${id}`,
      model: `scripted:${name}-${id}.json`,
      tools: ['bash'],
    });
  });
  const file = join(folder, `${name}.jsonl`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

test('dar batch --max-turns: exit 3, unstarted tasks skipped with the reason, running ones stopped at a boundary; dar status shows usage and why', async () => {
  const long = (task: string) => [1, 2, 3, 4, 5, 6].map((n) => markAnswer(task, n));
  const file = writeBatch('budget', { a: long('a'), b: long('b'), c: long('c') });
  const results = join(folder, 'budget.results.jsonl');
  const ran = await dar([
    'batch',
    file,
    '--batch-id',
    'budget-e2e',
    '--concurrency',
    '2',
    '--max-turns',
    '3',
    '--results',
    results,
    '--state-dir',
    stateDir,
  ]);
  expect(ran.stderr).not.toMatch(/error/i);
  expect(ran.code).toBe(3);
  expect(ran.stdout).toMatch(
    /Stopped \(Batch budget exceeded: turns \d+ of 3\): 1 tasks not started/,
  );
  expect(ran.stdout).toMatch(
    /^Batch budget exceeded: turns \d+ of 3: starting no more tasks; asking 2 running jobs to stop at their next turn boundary$/m,
  );
  expect(ran.stdout).toMatch(/^c skipped \(not started\): Batch budget exceeded: turns/m);
  // The progress lines say what each finished task used.
  expect(ran.stdout).toMatch(/^a failed \(\d turns, [\d,]+ tokens, \$0\.0\d+\): Batch budget/m);

  const lines = readResults(results);
  expect(lines.map((line) => [line.id, line.status])).toEqual([
    ['a', 'failed'],
    ['b', 'failed'],
    ['c', 'skipped'],
  ]);
  for (const line of lines) expect(line.error).toMatch(/^Batch budget exceeded: turns \d+ of 3$/);
  expect(lines[2]).toMatchObject({ usage: null, turns: null, attempt: 1 });

  const status = await dar(['status', 'batch-budget-e2e-a', '--state-dir', stateDir]);
  expect(status.code).toBe(0);
  const turns = Number(/^turns: +(\d+)$/m.exec(status.stdout)?.[1]);
  expect(turns).toBeGreaterThanOrEqual(1);
  expect(turns).toBeLessThan(5);
  expect(status.stdout).toContain(
    `tokens:     ${turns * 60} in, ${turns * 40} out, ${turns * 100} total`,
  );
  expect(status.stdout).toContain(`cost:       $${(turns * 0.01).toFixed(4)}`);
  expect(status.stdout).toMatch(/^stopped by: Batch budget exceeded: turns \d+ of 3$/m);
  const json = await dar(['status', 'batch-budget-e2e-a', '--json', '--state-dir', stateDir]);
  expect(JSON.parse(json.stdout)).toMatchObject({
    turns,
    usage: { totalTokens: turns * 100 },
    budgetExceeded: { limit: 'turns', max: 3, scope: 'batch' },
  });
});

test('dar batch --retry-failed reruns only the failed task as attempt 2 and keeps attempt 1 in the results', async () => {
  const failing: ScriptedAnswer = {
    stopReason: 'error',
    content: [],
    errorMessage: 'provider unavailable',
  };
  const file = writeBatch('retry', { ok: [markAnswer('ok', 1), finalAnswer], bad: [failing] });
  const results = join(folder, 'retry.results.jsonl');
  const args = ['batch', file, '--batch-id', 'retry-e2e', '--results', results];
  const first = await dar([...args, '--state-dir', stateDir]);
  expect(first.code).toBe(1);
  expect(readResults(results).map((line) => line.status)).toEqual(['completed', 'failed']);

  // The task would now succeed; a plain rerun does not touch it, --retry-failed does.
  writeFileSync(
    join(folder, 'retry-bad.json'),
    JSON.stringify([markAnswer('bad', 1), finalAnswer]),
  );
  const plain = await dar([...args, '--state-dir', stateDir]);
  expect(plain.code).toBe(1);
  const retried = await dar([...args, '--retry-failed', '--state-dir', stateDir]);
  expect(retried.stderr).not.toMatch(/error/i);
  expect(retried.code).toBe(0);
  expect(retried.stdout).toContain('Retried: 1 failed tasks as new attempts');
  expect(retried.stdout).toMatch(/^bad \(attempt 2\) running \(batch-retry-e2e-bad\+attempt-2\)/m);

  const [ok, bad] = readResults(results);
  expect(ok).toMatchObject({ id: 'ok', status: 'completed', attempt: 1 });
  expect(ok?.earlierAttempts).toBeUndefined();
  expect(bad).toMatchObject({
    id: 'bad',
    status: 'completed',
    text: 'finished',
    attempt: 2,
    workflowId: 'batch-retry-e2e-bad+attempt-2',
    earlierAttempts: [
      {
        attempt: 1,
        workflowId: 'batch-retry-e2e-bad',
        status: 'failed',
        error: 'provider unavailable',
      },
    ],
  });
  const status = await dar(['status', 'batch-retry-e2e-bad+attempt-2', '--state-dir', stateDir]);
  expect(status.stdout).toContain('tokens:     65 in, 45 out, 110 total');
});
