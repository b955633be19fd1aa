import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { batchIdOf, checkBatchId, taskWorkflowId } from '../../../src/batch/batch-id.js';
import { MAXIMUM_LISTED_BAD_LINES, parseBatchFile } from '../../../src/batch/task-file.js';
import { UsageError } from '../../../src/cli/usage-error.js';

/** A batch folder: a script, a policy and a workspace, all named relative to the file. */
function batchFolder() {
  const folder = mkdtempSync(join(tmpdir(), 'dar-task-file-'));
  mkdirSync(join(folder, 'scripts'));
  mkdirSync(join(folder, 'work'));
  writeFileSync(
    join(folder, 'scripts', 'one.json'),
    JSON.stringify([{ content: [{ type: 'text', text: 'hi' }], stopReason: 'stop' }]),
  );
  writeFileSync(
    join(folder, 'no-bash.json'),
    JSON.stringify({ rules: [{ tool: 'bash', reason: 'no shell' }] }),
  );
  return { folder, file: join(folder, 'tasks.jsonl') };
}

function lines(...tasks: unknown[]): string {
  return tasks.map((task) => (typeof task === 'string' ? task : JSON.stringify(task))).join('\n');
}

function problems(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('expected a UsageError');
}

test('each line becomes a job input; relative paths are the batch file folder', () => {
  const { folder, file } = batchFolder();
  const text = lines(
    {
      id: 'a',
      prompt: 'first',
      model: 'scripted:scripts/one.json',
      workspace: 'work',
      tools: ['read', 'bash'],
      policy: 'no-bash.json',
    },
    '',
    { prompt: 'second', model: 'scripted:scripts/one.json', tools: 'ls' },
  );
  const tasks = parseBatchFile(file, text, {});
  expect(tasks.map(({ id, line }) => ({ id, line }))).toEqual([
    { id: 'a', line: 1 },
    // No id: the line number (the blank line 2 counts).
    { id: '3', line: 3 },
  ]);
  expect(tasks[0]?.input).toMatchObject({
    prompt: 'first',
    model: `scripted:${join(folder, 'scripts', 'one.json')}`,
    workspace: join(folder, 'work'),
    tools: ['read', 'bash'],
    policy: { rules: [{ tool: 'bash', reason: 'no shell' }] },
  });
  // No workspace: the batch file's folder.
  expect(tasks[1]?.input).toMatchObject({ workspace: folder, tools: ['ls'] });
});

test('a line without a model takes the batch default', () => {
  const { folder, file } = batchFolder();
  const model = `scripted:${join(folder, 'scripts', 'one.json')}`;
  const tasks = parseBatchFile(file, lines({ prompt: 'p' }), { model });
  expect(tasks[0]?.input.model).toBe(model);
  expect(problems(() => parseBatchFile(file, lines({ prompt: 'p' }), {}))).toContain(
    'line 1: no "model" here and no --model for the batch',
  );
});

test('every bad line is reported with its number, and nothing is returned', () => {
  const { file } = batchFolder();
  const good = { prompt: 'p', model: 'scripted:scripts/one.json' };
  const message = problems(() =>
    parseBatchFile(
      file,
      lines(
        { ...good, id: 'x' },
        '{"prompt": ',
        '[1, 2]',
        { ...good, tools: ['read', 'fly'] },
        { ...good, id: 'x' },
        { ...good, prompt: 7 },
        { ...good, colour: 'blue' },
        { ...good, id: 'has space' },
        { ...good, model: 'scripted:scripts/missing.json' },
        { ...good, policy: 'nowhere.json' },
        { ...good, workspace: 'nowhere' },
        { ...good, prompt: 'p'.repeat(2_500_000) },
        { ...good, prompt: 'p'.repeat(2_000_000) },
      ),
      {},
    ),
  );
  expect(message.split('\n')[0]).toBe('11 bad lines, nothing started:');
  const reported = [...message.matchAll(/line (\d+):/g)].map((match) => Number(match[1]));
  expect(reported).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  expect(message).toContain(`${file} line 2: not valid JSON`);
  expect(message).toContain('line 3: must be a JSON object');
  expect(message).toContain('line 4: Unknown tool fly');
  expect(message).toContain('line 5: task id "x" is already used on line 1');
  expect(message).toContain('line 6: "prompt" must be a string');
  expect(message).toContain('line 7: unknown field colour');
  expect(message).toContain('line 8: "id" must be');
  expect(message).toContain('line 9: Model script');
  expect(message).toContain('line 10: Policy file');
  expect(message).toContain('line 11: Workspace');
  // Refused before the batch starts, instead of by the server with the batch half-way through.
  expect(message).toMatch(
    /line 12: The job's input is 2\.5 MB as JSON, over the Temporal server's payload limit \(2 MB unless/,
  );
});

test('a file of many bad lines gets a bounded answer: the first lines listed, the rest counted', () => {
  const { file } = batchFolder();
  const good = { prompt: 'p', model: 'scripted:scripts/one.json' };
  // 45 bad lines, one of them naming a field a megabyte long.
  const bad = Array.from({ length: 44 }, (_, index) => ({ ...good, [`colour${index}`]: 1 }));
  const huge = { ...good, ['f'.repeat(1_000_000)]: 1 };
  const message = problems(() => parseBatchFile(file, lines(good, huge, ...bad), {}));
  const reported = message.split('\n');
  expect(reported[0]).toBe('45 bad lines, nothing started:');
  expect([...message.matchAll(/ line (\d+):/g)].map((match) => Number(match[1]))).toEqual(
    Array.from({ length: MAXIMUM_LISTED_BAD_LINES }, (_, index) => index + 2),
  );
  expect(reported.at(-1)).toBe(
    `... and ${45 - MAXIMUM_LISTED_BAD_LINES} more bad lines (the first ${MAXIMUM_LISTED_BAD_LINES} are listed)`,
  );
  expect(reported[1]).toContain(`${file} line 2: unknown field ffff`);
  expect(reported[1]).toContain('more characters)');
  expect(message.length).toBeLessThan(MAXIMUM_LISTED_BAD_LINES * 5_000);
});

test('an empty file is no batch', () => {
  const { file } = batchFolder();
  expect(problems(() => parseBatchFile(file, '\n\n', {}))).toContain('holds no task');
});

test('the batch id is a stable hash of path and contents; task workflow ids derive from it', () => {
  const id = batchIdOf('/data/tasks.jsonl', 'line\n');
  expect(id).toMatch(/^[0-9a-f]{16}$/);
  expect(batchIdOf('/data/tasks.jsonl', 'line\n')).toBe(id);
  expect(batchIdOf('/data/other.jsonl', 'line\n')).not.toBe(id);
  expect(batchIdOf('/data/tasks.jsonl', 'line 2\n')).not.toBe(id);
  expect(taskWorkflowId(id, 'task-7')).toBe(`batch-${id}-task-7`);
  expect(checkBatchId('nightly-2024.05', '--batch-id')).toBe('nightly-2024.05');
  expect(() => checkBatchId("x' OR 'a'='a", '--batch')).toThrow(UsageError);
});

test('a line may carry a budget, checked like the job input: bad limits name the line', () => {
  const { file } = batchFolder();
  const good = { prompt: 'p', model: 'scripted:scripts/one.json' };
  const [task] = parseBatchFile(
    file,
    lines({ ...good, budget: { maxTurns: 4, maxCostUsd: 0.5 } }),
    {},
  );
  expect(task?.input.budget).toEqual({ maxTurns: 4, maxCostUsd: 0.5 });
  const message = problems(() =>
    parseBatchFile(
      file,
      lines(
        { ...good, budget: { maxTurns: 0 } },
        { ...good, budget: { maxTime: '30m' } },
        { ...good, budget: 5 },
      ),
      {},
    ),
  );
  expect(message).toContain('line 1: Bad job input: budget.maxTurns: must be >= 1');
  expect(message).toContain('line 2: Bad job input: budget.maxTime: is not a known field');
  expect(message).toContain('line 3: "budget" must be an object');
});
