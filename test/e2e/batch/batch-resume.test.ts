import { readdirSync, readFileSync } from 'node:fs';
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
import { MODEL_CALL_ACTIVITIES } from '../../../src/workflows/model-call-activities.js';

/**
 * `dar batch` killed with SIGKILL in the middle of a 50-task batch and started again: every task
 * finishes, each exactly once. Real dev server, real `dar` processes, scripted model.
 */
const TASKS = 50;
const CONCURRENCY = 10;
const BATCH_ID = 'resume-test';

const folder = temporaryFolder('dar-batch-resume-');
const stateDir = join(folder, 'state');
const resultsPath = join(folder, 'results.jsonl');
const batch = writeScriptedBatch(folder, TASKS, 700);
let temporal: { client: Client; connection: Connection } | undefined;

afterAll(async () => {
  await killLeftovers();
  await temporal?.connection.close();
  stopServer(stateDir);
});

function batchArgs(): string[] {
  return [
    'batch',
    batch.file,
    '--concurrency',
    String(CONCURRENCY),
    '--batch-id',
    BATCH_ID,
    '--results',
    resultsPath,
    '--state-dir',
    stateDir,
  ];
}

/** The highest "done N/50" the plain progress lines have shown. */
function doneSoFar(stdout: string): number {
  return Math.max(0, ...[...stdout.matchAll(/done (\d+)\/50/g)].map((match) => Number(match[1])));
}

test('a batch killed with SIGKILL and started again runs every task exactly once', async () => {
  // First run: killed once some tasks finished and others run.
  const first = new DarChild(batchArgs());
  await waitFor('15 tasks done', () => (doneSoFar(first.stdout) >= 15 ? true : undefined), 60_000);
  first.child.kill('SIGKILL');
  const killed = await first.done;
  expect(killed.signal).toBe('SIGKILL');
  const doneAtKill = doneSoFar(killed.stdout);
  expect(doneAtKill).toBeLessThan(TASKS);
  expect(killed.stdout).toMatch(/running \d+/);

  // Second run: the same command continues where the first stopped.
  const second = await dar(batchArgs(), 100_000);
  if (second.code !== 0) console.log(`SECOND RUN\n${second.stdout}\n${second.stderr}`);
  expect(second.code).toBe(0);
  expect(second.stdout).toMatch(/completed \(earlier run\)/);
  expect(second.stdout).toMatch(/done 50\/50 {2}running 0 {2}failed 0 {2}cancelled 0 {2}queued 0/);

  // Each task's results line is there once, completed, with its final text.
  const results = readResults(resultsPath);
  expect(results.map((line) => line.id).sort()).toEqual(batch.tasks.map((task) => task.id).sort());
  for (const line of results) {
    expect(line).toMatchObject({
      status: 'completed',
      text: `${String(line.id)} done`,
      workflowId: `batch-${BATCH_ID}-${String(line.id)}`,
    });
  }

  // Exactly one workflow per task id: listed by DarBatchId, all closed, one run each.
  temporal = await embeddedClient(stateDir);
  const client = temporal.client;
  const workflows = await waitFor('all 50 jobs listed as completed', async () => {
    const rows = await batchWorkflows(client, BATCH_ID);
    return rows.length === TASKS && rows.every((row) => row.status === 'COMPLETED')
      ? rows
      : undefined;
  });
  expect(new Set(workflows.map((row) => row.workflowId)).size).toBe(TASKS);

  // No model was called more than its script allows, and no shell command ran twice.
  for (const task of batch.tasks) {
    const history = await client.workflow.getHandle(`batch-${BATCH_ID}-${task.id}`).fetchHistory();
    const modelCalls = (history.events ?? []).filter((event) =>
      MODEL_CALL_ACTIVITIES.has(
        event.activityTaskScheduledEventAttributes?.activityType?.name ?? '',
      ),
    );
    expect(modelCalls).toHaveLength(task.modelCalls);
  }
  const marks = readdirSync(batch.marks);
  for (const name of marks) {
    expect(readFileSync(join(batch.marks, name), 'utf8')).toBe(`${name}\n`);
  }
  // A bash call cut off by the kill is answered with a timeout, not run again; all others ran.
  expect(marks.length).toBeGreaterThanOrEqual(TASKS - CONCURRENCY);
}, 150_000);
