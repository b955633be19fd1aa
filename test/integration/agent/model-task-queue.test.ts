import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { AgentJob } from '../../../src/client/job-client.js';
import type { JobStore } from '../../../src/store/job-store.js';
import { createAgentWorker } from '../../../src/worker/agent-worker.js';
import type { AgentWorker } from '../../../src/worker/agent-worker-group.js';
import type { ModelPacing } from '../../../src/worker/model-pacing.js';
import { providerTaskQueue } from '../../../src/workflows/model-task-queue.js';
import { RELEASE_FEATURES_PATCH } from '../../../src/workflows/release-features.js';
import {
  jobInput,
  openTestStore,
  scriptedModel,
  startTestJob,
  temporaryFolder,
  testWorkflowsPath,
  text,
  toolCall,
  uniqueName,
} from '../../support/agent-harness.js';
import { startDevServer } from '../../support/temporal-server.js';
import { cachedWorkflowBundle } from '../../support/workflow-bundle-cache.js';

/**
 * Where a job's model calls go (release `2026-12d`): a run's first call on its provider's task
 * queue; the next ones stay there while the worker that answered paces the provider, and go on
 * the job's own queue (where they start eagerly) when it does not. Real dev server and workers.
 */

let environment: TestWorkflowEnvironment;
let store: JobStore;
const running: { worker: AgentWorker; run: Promise<void> }[] = [];

async function startWorker(modelPacing: ModelPacing): Promise<string> {
  const taskQueue = uniqueName('model-queue');
  const worker = await createAgentWorker({
    connection: environment.nativeConnection,
    taskQueue,
    workflowBundlePath: await cachedWorkflowBundle(testWorkflowsPath),
    store,
    modelPacing,
  });
  running.push({ worker, run: worker.run() });
  return taskQueue;
}

/** A job of three model calls: two tool turns and a final answer. */
async function threeCallJob(taskQueue: string): Promise<AgentJob> {
  const workspace = temporaryFolder('dar-model-queue-');
  const model = scriptedModel(temporaryFolder(), [
    { stopReason: 'toolUse', content: [toolCall('l1', 'ls', {})] },
    { stopReason: 'toolUse', content: [toolCall('l2', 'ls', {})] },
    { stopReason: 'stop', content: [text('listed twice')] },
  ]);
  const job = await startTestJob(
    { environment, taskQueue, store },
    jobInput({ model, workspace, tools: ['ls'] }),
  );
  const result = await job.result();
  expect(result.status.stopReason).toBe('stop');
  return job;
}

/** The task queue of each model call the job scheduled, in order. */
async function modelCallQueues(job: AgentJob): Promise<string[]> {
  const history = await environment.client.workflow.getHandle(job.workflowId).fetchHistory();
  const patches = (history.events ?? []).flatMap((event) =>
    (event.markerRecordedEventAttributes?.details?.['patch-data']?.payloads ?? []).map((payload) =>
      Buffer.from(payload.data ?? new Uint8Array()).toString('utf8'),
    ),
  );
  expect(patches.join()).toContain(RELEASE_FEATURES_PATCH);
  return (history.events ?? []).flatMap((event) => {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name !== 'callModelWithStore') return [];
    return [scheduled.taskQueue?.name ?? ''];
  });
}

beforeAll(async () => {
  environment = await startDevServer();
  store = await openTestStore();
});

afterAll(async () => {
  for (const { worker } of running) worker.shutdown();
  await Promise.all(running.map(({ run }) => run));
  await environment?.teardown();
  await store?.close();
});

test('an unpaced provider: the first model call goes to its queue, the next ones to the job queue', async () => {
  const taskQueue = await startWorker({});
  const job = await threeCallJob(taskQueue);

  expect(await modelCallQueues(job)).toEqual([
    providerTaskQueue(taskQueue, 'scripted'),
    taskQueue,
    taskQueue,
  ]);
});

test('a paced provider: every model call stays on its queue, where the pacing applies', async () => {
  const taskQueue = await startWorker({ scripted: { concurrency: 4 } });
  const job = await threeCallJob(taskQueue);

  const provider = providerTaskQueue(taskQueue, 'scripted');
  expect(await modelCallQueues(job)).toEqual([provider, provider, provider]);
});
