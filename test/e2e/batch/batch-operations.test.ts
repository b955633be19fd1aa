import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client, Connection } from '@temporalio/client';
import {
  DarChild,
  batchWorkflows,
  dar,
  embeddedClient,
  killLeftovers,
  readResults,
  stopServer,
  temporaryFolder,
  waitFor,
  writeScriptedBatch,
} from './batch-harness.js';

/** `dar list --batch/--phase`, a batch file with bad lines, `dar cancel --batch`: real processes. */
const folder = temporaryFolder('dar-batch-ops-');
const stateDir = join(folder, 'state');
let temporal: { client: Client; connection: Connection } | undefined;

afterAll(async () => {
  await killLeftovers();
  await temporal?.connection.close();
  stopServer(stateDir);
});

async function client(): Promise<Client> {
  temporal ??= await embeddedClient(stateDir);
  return temporal.client;
}

function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

test('dar list --batch X --phase done lists the finished jobs of a batch', async () => {
  const own = join(folder, 'listed');
  const batch = writeScriptedBatch(join(folder), 3, 0);
  const finished = await dar([
    'batch',
    batch.file,
    '--batch-id',
    'ops-list',
    '--results',
    `${own}.results.jsonl`,
    '--state-dir',
    stateDir,
  ]);
  expect(finished.code).toBe(0);
  expect(readResults(`${own}.results.jsonl`)).toHaveLength(3);

  const rows = await waitFor('3 jobs in phase done', async () => {
    const listed = await dar([
      'list',
      '--batch',
      'ops-list',
      '--phase',
      'done',
      '--json',
      '--state-dir',
      stateDir,
    ]);
    const found = jsonLines(listed.stdout);
    return found.length === 3 ? found : undefined;
  });
  for (const row of rows) {
    expect(row).toMatchObject({ status: 'COMPLETED', phase: 'done', turns: 2, batch: 'ops-list' });
  }
  const tools = await dar([
    'list',
    '--batch',
    'ops-list',
    '--phase',
    'tools',
    '--state-dir',
    stateDir,
  ]);
  expect(tools.stdout.trim()).toBe('No jobs.');
  const wrong = await dar(['list', '--phase', 'thinking', '--state-dir', stateDir]);
  expect(wrong.code).toBe(2);
  expect(wrong.stderr).toContain(
    '--phase must be one of running, approval, waiting, done, model, tools',
  );
}, 90_000);

test('a batch file with bad lines reports each with its line number and starts nothing', async () => {
  const file = join(folder, 'bad.jsonl');
  const good = { id: 'fine', prompt: 'ok', model: 'scripted:scripts/task-1.json', tools: ['bash'] };
  writeFileSync(
    file,
    [
      JSON.stringify(good),
      '{"prompt": "missing brace"',
      JSON.stringify({ ...good, id: 'other', tools: ['bash', 'teleport'] }),
      '',
      JSON.stringify({ ...good, workspace: 'no-such-folder', id: 'fine' }),
    ].join('\n'),
  );
  const result = await dar(['batch', file, '--batch-id', 'ops-bad', '--state-dir', stateDir]);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain('3 bad lines, nothing started');
  expect(result.stderr).toMatch(/bad\.jsonl line 2: not valid JSON/);
  expect(result.stderr).toMatch(/bad\.jsonl line 3: Unknown tool teleport/);
  expect(result.stderr).toMatch(/bad\.jsonl line 5: .*no-such-folder does not exist/);
  expect(result.stderr).not.toMatch(/line 1:/);
  expect(result.stdout).toBe('');
  expect(await batchWorkflows(await client(), 'ops-bad')).toEqual([]);
}, 60_000);

test('dar cancel --batch X cancels the running jobs; dar batch starts no more and says so', async () => {
  const own = join(folder, 'cancelled');
  const tasks = [1, 2, 3, 4, 5].map((index) => {
    const script = join(folder, `slow-${index}.json`);
    // A model call that takes a minute: the jobs are surely running when cancelled.
    writeFileSync(
      script,
      JSON.stringify([
        { content: [{ type: 'text', text: 'late' }], stopReason: 'stop', delayMs: 60_000 },
      ]),
    );
    return JSON.stringify({ id: `slow-${index}`, prompt: 'wait', model: `scripted:${script}` });
  });
  const file = join(folder, 'slow.jsonl');
  writeFileSync(file, `${tasks.join('\n')}\n`);
  const results = `${own}.results.jsonl`;
  const batch = new DarChild([
    'batch',
    file,
    '--concurrency',
    '2',
    '--batch-id',
    'ops-cancel',
    '--results',
    results,
    '--state-dir',
    stateDir,
  ]);
  await waitFor('2 jobs listed as running', async () => {
    const rows = await batchWorkflows(await client(), 'ops-cancel');
    return rows.filter((row) => row.status === 'RUNNING').length === 2 ? true : undefined;
  });

  const cancel = await dar(['cancel', '--batch', 'ops-cancel', '--state-dir', stateDir]);
  expect(cancel.code).toBe(0);
  expect(cancel.stdout).toContain('Batch ops-cancel: cancellation requested for 2 running job(s)');

  const ended = await batch.done;
  expect(ended.code).toBe(130);
  expect(ended.stdout).toContain('Stopped (a task was cancelled): 3 tasks not started');
  const lines = readResults(results);
  expect(lines).toHaveLength(2);
  for (const line of lines) expect(line.status).toBe('cancelled');
  // Only the two running tasks ever had a workflow; both are cancelled.
  const rows = await waitFor('2 cancelled jobs', async () => {
    const found = await batchWorkflows(await client(), 'ops-cancel');
    return found.every((row) => row.status === 'CANCELLED') ? found : undefined;
  });
  expect(rows).toHaveLength(2);
}, 90_000);
