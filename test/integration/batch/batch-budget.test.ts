import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import { AgentJob } from '../../../src/client/job-client.js';
import { planBatch, runBatch, type TaskProgress } from '../../../src/batch/batch-runner.js';
import type { BatchTask } from '../../../src/batch/task-file.js';
import { darBatchIdKey } from '../../../src/workflows/search-attributes.js';
import { resultLine } from '../../../src/batch/results-file.js';
import type { ScriptedAnswer } from '../../../src/providers/model-script.js';
import {
  jobInput,
  temporaryFolder,
  text,
  toolCall,
  uniqueName,
  useAgentTestServer,
} from '../../support/agent-harness.js';

const server = useAgentTestServer('batch-budget');

/** Turn n: a bash body that takes 500 ms and then appends `n` to `marks.txt`; 100 tokens. */
function markAnswer(n: number): ScriptedAnswer {
  return {
    stopReason: 'toolUse',
    content: [toolCall(`b${n}`, 'bash', { command: `sleep 0.5 && echo ${n} >> marks.txt` })],
    usage: { input: 60, output: 40, costUsd: 0.01 },
  };
}

const finalAnswer: ScriptedAnswer = {
  stopReason: 'stop',
  content: [text('all marked')],
  usage: { input: 5, output: 5, costUsd: 0 },
};

/** A task whose job runs in its own folder with the script `answers` (rewritable later). */
function scriptedTask(id: string, answers: ScriptedAnswer[]): BatchTask & { folder: string } {
  const folder = temporaryFolder(`dar-batch-${id}-`);
  const script = join(folder, 'script.json');
  writeFileSync(script, JSON.stringify(answers));
  return {
    id,
    line: 1,
    folder,
    input: jobInput({ model: `scripted:${script}`, workspace: folder, tools: ['bash'] }),
  };
}

function marks(folder: string): string[] {
  const path = join(folder, 'marks.txt');
  return existsSync(path) ? readFileSync(path, 'utf8').trim().split('\n') : [];
}

async function exists(workflowId: string): Promise<boolean> {
  try {
    await server.environment.client.workflow.getHandle(workflowId).describe();
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/** The names of the runner's attributes each upsert of a job's history set, in order. */
async function upsertedAttributes(workflowId: string): Promise<string[][]> {
  const history = await server.environment.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((event) => {
    const fields = event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes;
    const names = Object.keys(fields?.indexedFields ?? {}).filter((name) => name.startsWith('Dar'));
    return names.length === 0 ? [] : [names.sort()];
  });
}

function run(
  batchId: string,
  tasks: TaskProgress[],
  extra: Partial<Parameters<typeof runBatch>[0]>,
) {
  return runBatch({
    client: server.environment.client,
    store: server.store,
    taskQueue: server.taskQueue,
    batchId,
    tasks,
    concurrency: 2,
    usageIntervalMs: 100,
    onChange: () => undefined,
    ...extra,
  });
}

test('R20: a batch budget starts no more tasks (skipped, with the reason) and ends running jobs at a turn boundary, never in a tool body', async () => {
  const answers = [1, 2, 3, 4, 5, 6].map(markAnswer).concat(finalAnswer);
  const defined = ['first', 'second', 'third'].map((id) => scriptedTask(id, answers));
  const batchId = uniqueName('budget').slice(0, 40);
  const tasks = planBatch(batchId, defined);
  const batch = await run(batchId, tasks, { budget: { maxTurns: 3 } });

  expect(batch.stopped).toBe('budget');
  expect(batch.budgetExceeded).toMatchObject({ limit: 'turns', max: 3, scope: 'batch' });
  const [first, second, third] = tasks;
  // Never started: recorded as skipped with the reason, and no workflow exists for it.
  expect(third?.state).toBe('skipped');
  expect(third?.skipReason).toMatch(/^Batch budget exceeded: turns \d+ of 3$/);
  expect(await exists(third?.workflowId ?? '')).toBe(false);
  expect(resultLine(third as TaskProgress)).toMatchObject({
    id: 'third',
    status: 'skipped',
    error: third?.skipReason,
  });

  for (const [index, progress] of [first, second].entries()) {
    expect(progress?.state).toBe('failed');
    expect(progress?.outcome?.error).toMatch(/^Batch budget exceeded: turns \d+ of 3$/);
    expect(progress?.outcome?.budgetExceeded).toMatchObject({ limit: 'turns', scope: 'batch' });
    const job = new AgentJob(
      server.environment.client.workflow.getHandle(progress?.workflowId ?? ''),
      server.store,
    );
    const status = await job.status();
    // Stopped well before its script's end; every turn it made finished its tool body.
    expect(status.turns).toBeGreaterThanOrEqual(1);
    expect(status.turns).toBeLessThan(5);
    expect(marks(defined[index]?.folder ?? '')).toHaveLength(status.turns);
    expect(status.budgetExceeded).toMatchObject({ limit: 'turns', scope: 'batch' });
    const events = (await job.events(0)).map((event) => event.type);
    expect(events.slice(-2)).toEqual(['turn_end', 'agent_end']);
    expect(events.filter((type) => type === 'tool_execution_start')).toHaveLength(status.turns);
    expect(events.filter((type) => type === 'tool_execution_end')).toHaveLength(status.turns);
  }

  // Run again with the same budget: what the finished jobs used counts, so nothing starts.
  const again = planBatch(batchId, defined);
  const rerun = await run(batchId, again, { budget: { maxTurns: 3 } });
  expect(rerun.stopped).toBe('budget');
  expect(again.map((progress) => progress.state)).toEqual(['failed', 'failed', 'skipped']);
  expect(again[2]?.skipReason).toMatch(/^Batch budget exceeded: turns \d+ of 3$/);
  expect(await exists(third?.workflowId ?? '')).toBe(false);
});

test('R20: a batch whose tasks finish within its budget completes normally, with their usage', async () => {
  const defined = ['one', 'two'].map((id) => scriptedTask(id, [markAnswer(1), finalAnswer]));
  const batchId = uniqueName('within').slice(0, 40);
  const tasks = planBatch(batchId, defined);
  const batch = await run(batchId, tasks, { budget: { maxTurns: 10, maxCostUsd: 1 } });
  expect(batch.stopped).toBeUndefined();
  for (const progress of tasks) {
    expect(progress.state).toBe('completed');
    expect(progress.outcome).toMatchObject({ turns: 2, usage: { totalTokens: 110 } });
    expect(progress.outcome?.usage?.cost.total).toBeCloseTo(0.01);
    // `dar batch` set DarBatchId, DarPhase and DarTurns at the start: the job upserted only the
    // end (no DarBatchId again, no `running`).
    expect(await upsertedAttributes(progress.workflowId)).toEqual([['DarPhase', 'DarTurns']]);
    const attributes = (
      await server.environment.client.workflow.getHandle(progress.workflowId).describe()
    ).typedSearchAttributes;
    expect(attributes.get(darBatchIdKey)).toBe(batchId);
  }
});

test('--retry-failed starts only the failed tasks again under new workflow ids and keeps the first attempt', async () => {
  const failing: ScriptedAnswer = {
    stopReason: 'error',
    content: [],
    errorMessage: 'provider unavailable',
    usage: { input: 7, output: 0, costUsd: 0 },
  };
  const good = scriptedTask('good', [markAnswer(1), finalAnswer]);
  const flaky = scriptedTask('flaky', [failing]);
  const batchId = uniqueName('retry').slice(0, 40);

  const firstRun = planBatch(batchId, [good, flaky]);
  await run(batchId, firstRun, {});
  expect(firstRun.map((progress) => progress.state)).toEqual(['completed', 'failed']);
  expect(firstRun[1]?.outcome?.error).toBe('provider unavailable');

  // The provider is back: the same task's script now succeeds.
  writeFileSync(join(flaky.folder, 'script.json'), JSON.stringify([markAnswer(1), finalAnswer]));
  const retryRun = planBatch(batchId, [good, flaky]);
  const retried = await run(batchId, retryRun, { retryFailed: true });
  expect(retried.retried).toBe(1);
  const [goodAgain, flakyAgain] = retryRun;
  // The completed task is read back, not run again.
  expect(goodAgain).toMatchObject({ origin: 'finished', attempt: 1, state: 'completed' });
  expect(marks(good.folder)).toEqual(['1']);
  expect(flakyAgain).toMatchObject({
    attempt: 2,
    workflowId: `batch-${batchId}-flaky+attempt-2`,
    origin: 'started',
    state: 'completed',
  });
  expect(marks(flaky.folder)).toEqual(['1']);
  expect(await exists(`batch-${batchId}-flaky`)).toBe(true);
  const line = resultLine(flakyAgain as TaskProgress);
  expect(line).toMatchObject({
    id: 'flaky',
    attempt: 2,
    status: 'completed',
    text: 'all marked',
    earlierAttempts: [
      {
        attempt: 1,
        workflowId: `batch-${batchId}-flaky`,
        status: 'failed',
        error: 'provider unavailable',
        turns: 1,
      },
    ],
  });

  // A later run, with the flag again, finds both attempts; nothing failed, so nothing starts.
  const thirdRun = planBatch(batchId, [good, flaky]);
  const again = await run(batchId, thirdRun, { retryFailed: true });
  expect(again.retried).toBe(0);
  expect(thirdRun[1]).toMatchObject({ attempt: 2, origin: 'finished', state: 'completed' });
  expect(thirdRun[1]?.earlier.map((attempt) => attempt.outcome.status)).toEqual(['failed']);
  expect(marks(flaky.folder)).toEqual(['1']);
});
