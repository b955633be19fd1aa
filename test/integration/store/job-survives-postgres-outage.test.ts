/**
 * A PostgreSQL job store that goes away in the middle of a job: the activities wait for it
 * (backoff, heartbeating), the progress local activity retries, and once it is back the job
 * completes with nothing lost and nothing written twice.
 */
import { defaultPayloadConverter } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { AgentWorker } from '../../../src/worker/agent-worker-group.js';
import { getJob, startJob } from '../../../src/client/job-client.js';
import { PostgresJobStore, type JobStore } from '../../../src/store/index.js';
import {
  createTestWorker,
  jobInput,
  scriptedModel,
  temporaryFolder,
  text,
  toolCall,
  uniqueName,
} from '../../support/agent-harness.js';
import { startPostgresServer, type PostgresServer } from '../../support/postgres-server.js';
import { startDevServer } from '../../support/temporal-server.js';
import { eventKinds, workflowRuns } from '../../support/workflow-history.js';

const OUTAGE_MS = 10_000;

let postgres: PostgresServer;
let environment: TestWorkflowEnvironment;
let store: JobStore;
let worker: AgentWorker;
let workerRun: Promise<void>;
const taskQueue = uniqueName('postgres-outage');

beforeAll(async () => {
  postgres = await startPostgresServer();
  const url = await postgres.createDatabase('outage');
  store = new PostgresJobStore({ connectionString: url, follow: { intervalMs: 50 } });
  environment = await startDevServer();
  worker = await createTestWorker(environment, taskQueue, store);
  workerRun = worker.run();
}, 120_000);

afterAll(async () => {
  worker?.shutdown();
  await workerRun;
  await environment?.teardown();
  await store?.close();
  await postgres?.destroy();
});

async function until<T>(what: string, check: () => Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('a PostgreSQL outage of 10 s in the middle of a job loses nothing: the job completes, transcript and events exactly once', async () => {
  const folder = temporaryFolder();
  const turns = 8;
  const model = scriptedModel(folder, [
    ...Array.from({ length: turns }, (_, index) => ({
      stopReason: 'toolUse' as const,
      delayMs: 700,
      content: [
        text(`turn ${index}`),
        toolCall(`call-${index}`, 'bash', { command: `echo result ${index}` }),
        toolCall(`list-${index}`, 'ls', {}),
      ],
    })),
    { stopReason: 'stop', delayMs: 700, content: [text('done')] },
  ]);
  const job = await startJob(environment.client, jobInput({ model, workspace: folder }), {
    taskQueue,
    workflowId: uniqueName('job'),
    store,
  });
  await until('the job to reach its third model call', async () => {
    const status = await job.storedStatus();
    return status !== undefined && status.modelCalls >= 3;
  });

  await postgres.stop();
  const stoppedAt = Date.now();
  // While the store is down the job waits (the rest of it would take about 5 s): it neither
  // fails nor completes, and its running activity heartbeats that it waits for the store.
  const waiting = new Set<string>();
  while (Date.now() - stoppedAt < OUTAGE_MS) {
    const during = await job.handle.describe();
    expect(during.status.name).toBe('RUNNING');
    for (const activity of during.raw.pendingActivities ?? []) {
      const details = activity.heartbeatDetails?.payloads ?? [];
      const [first] = details.map((payload) => defaultPayloadConverter.fromPayload(payload));
      if (typeof first === 'object' && first !== null && 'waitingForStore' in first) {
        waiting.add(activity.activityType?.name ?? '');
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  expect(waiting.size).toBeGreaterThan(0);
  await postgres.start();

  const result = await job.result();
  expect(result.status.modelCalls).toBe(turns + 1);
  expect(result.status.stopReason).toBe('stop');

  const transcript = result.messages;
  expect(transcript.map((message) => message.role)).toEqual([
    'user',
    ...Array.from({ length: turns }, () => ['assistant', 'toolResult', 'toolResult']).flat(),
    'assistant',
  ]);
  expect(
    transcript.flatMap((message) => (message.role === 'toolResult' ? [message.toolCallId] : [])),
  ).toEqual(Array.from({ length: turns }, (_, index) => [`call-${index}`, `list-${index}`]).flat());
  // No tool failed because of the outage.
  expect(transcript.filter((message) => message.role === 'toolResult' && message.isError)).toEqual(
    [],
  );

  // A fresh reader (new pool) sees the same events: 1..n, no gap, no repeat, agent_end last.
  const reader = getJob(environment.client, job.workflowId, store);
  const events = await reader.events(0, 100_000);
  expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  expect(events.filter((event) => event.type === 'agent_start')).toHaveLength(1);
  expect(events.filter((event) => event.type === 'turn_start')).toHaveLength(turns + 1);
  expect(events.filter((event) => event.type === 'tool_execution_end')).toHaveLength(2 * turns);
  const end = events.at(-1);
  expect(end?.type).toBe('agent_end');
  expect(end?.type === 'agent_end' ? end.messages : []).toEqual(transcript);

  // Nothing failed for good: no failed workflow task, no activity failed or timed out.
  const runs = await workflowRuns(environment.client, job.handle);
  const kinds = runs.flatMap((run) => eventKinds(run.events));
  expect(kinds).not.toContain('workflowTaskFailed');
  expect(kinds).not.toContain('activityTaskFailed');
  expect(kinds).not.toContain('activityTaskTimedOut');
}, 120_000);
