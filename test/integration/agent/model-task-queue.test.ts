import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkerOptions } from '@temporalio/worker';
import type { AgentJob } from '../../../src/client/job-client.js';
import type { JobStore } from '../../../src/store/job-store.js';
import { createAgentWorker } from '../../../src/worker/agent-worker.js';
import type { AgentWorker } from '../../../src/worker/agent-worker-group.js';
import type { ModelPacing } from '../../../src/worker/model-pacing.js';
import { createActivities } from '../../../src/activities/index.js';
import { SETUP_BY_REFERENCE_FROM_CHARACTERS } from '../../../src/activities/model-setup.js';
import type { ScriptedAnswer } from '../../../src/providers/model-script.js';
import { scriptedRequestsFolder } from '../../../src/providers/scripted-provider.js';
import { builtinTools } from '../../../src/tools/index.js';
import { MODEL_CALL_ACTIVITIES } from '../../../src/workflows/model-call-activities.js';
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
  waitForPhase,
} from '../../support/agent-harness.js';
import { startDevServer } from '../../support/temporal-server.js';
import { cachedWorkflowBundle } from '../../support/workflow-bundle-cache.js';

/**
 * Where a job's model calls go (releases `2026-12d` and `2026-12e`): a run's first call on the
 * job's own task queue as `callModelUnlessPaced`, which a worker that paces the provider answers
 * without calling (the call then goes to the provider's queue); the next ones stay on the
 * provider's queue while the worker that answered paces the provider, and go on the job's own
 * queue (where they start eagerly) when it does not. Real dev server and workers.
 */

let environment: TestWorkflowEnvironment;
let store: JobStore;
const running: { worker: AgentWorker; run: Promise<void> }[] = [];

async function startWorker(
  modelPacing: ModelPacing,
  activities?: WorkerOptions['activities'],
): Promise<string> {
  const taskQueue = uniqueName('model-queue');
  const worker = await createAgentWorker({
    connection: environment.nativeConnection,
    taskQueue,
    workflowBundlePath: await cachedWorkflowBundle(testWorkflowsPath),
    store,
    modelPacing,
    ...(activities ? { workerOptions: { activities } } : {}),
  });
  running.push({ worker, run: worker.run() });
  return taskQueue;
}

/** A worker's activities as a worker of an earlier release has them: without `activity`. */
function activitiesWithout(activity: string): WorkerOptions['activities'] {
  return Object.fromEntries(
    Object.entries(createActivities(Object.values(builtinTools), store)).filter(
      ([name]) => name !== activity,
    ),
  );
}

/** A job of three model calls: two tool turns and a final answer. */
async function threeCallJob(taskQueue: string, systemPrompt?: string): Promise<AgentJob> {
  return (await threeCallJobSeen(taskQueue, systemPrompt)).job;
}

/** A scripted model that keeps what it was sent on each call, in `requestsFolder`. */
function seenScriptedModel(answers: ScriptedAnswer[]): { model: string; requestsFolder: string } {
  const model = scriptedModel(temporaryFolder(), answers);
  const requestsFolder = scriptedRequestsFolder(model.slice('scripted:'.length));
  mkdirSync(requestsFolder);
  return { model, requestsFolder };
}

/** `threeCallJob`, with what the scripted model was sent on each call. */
async function threeCallJobSeen(
  taskQueue: string,
  systemPrompt?: string,
): Promise<{ job: AgentJob; requests: { systemPrompt: string; tools: { name: string }[] }[] }> {
  const workspace = temporaryFolder('dar-model-queue-');
  const { model, requestsFolder } = seenScriptedModel([
    { stopReason: 'toolUse', content: [toolCall('l1', 'ls', {})] },
    { stopReason: 'toolUse', content: [toolCall('l2', 'ls', {})] },
    { stopReason: 'stop', content: [text('listed twice')] },
  ]);
  const job = await startTestJob(
    { environment, taskQueue, store },
    jobInput({ model, workspace, tools: ['ls'], ...(systemPrompt ? { systemPrompt } : {}) }),
  );
  const result = await job.result();
  expect(result.status.stopReason).toBe('stop');
  const requests = [0, 1, 2].map((call) => scriptedRequest(requestsFolder, call));
  return { job, requests };
}

/** What the scripted model was sent on call `call`. */
function scriptedRequest(
  requestsFolder: string,
  call: number,
): { systemPrompt: string; tools: { name: string }[] } {
  return JSON.parse(readFileSync(join(requestsFolder, `${call}.json`), 'utf8')) as {
    systemPrompt: string;
    tools: { name: string }[];
  };
}

/** A system prompt that makes the setup worth storing. */
const LONG_SYSTEM_PROMPT = 'Work carefully and say what you did. '.repeat(
  Math.ceil((2 * SETUP_BY_REFERENCE_FROM_CHARACTERS) / 37),
);

/** The input of each model activity the job scheduled, as JSON, and its size in bytes. */
async function modelCallInputs(
  job: AgentJob,
): Promise<{ input: Record<string, unknown>; bytes: number }[]> {
  const history = await environment.client.workflow.getHandle(job.workflowId).fetchHistory();
  return (history.events ?? []).flatMap((event) => {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (!MODEL_CALL_ACTIVITIES.has(scheduled?.activityType?.name ?? '')) return [];
    const data = scheduled?.input?.payloads?.[0]?.data ?? new Uint8Array();
    const input = JSON.parse(Buffer.from(data).toString('utf8')) as Record<string, unknown>;
    return [{ input, bytes: data.length }];
  });
}

/** Each model activity the job scheduled, in order: `<activity type> on <task queue>`. */
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
    const type = scheduled?.activityType?.name ?? '';
    if (!MODEL_CALL_ACTIVITIES.has(type)) return [];
    return [`${type} on ${scheduled?.taskQueue?.name ?? ''}`];
  });
}

/** How each model activity of the job ended: called, left to pacing, or failed with its type. */
async function modelActivityOutcomes(job: AgentJob): Promise<string[]> {
  const history = await environment.client.workflow.getHandle(job.workflowId).fetchHistory();
  const events = history.events ?? [];
  const modelScheduled = new Set(
    events
      .filter((event) =>
        MODEL_CALL_ACTIVITIES.has(
          event.activityTaskScheduledEventAttributes?.activityType?.name ?? '',
        ),
      )
      .map((event) => String(event.eventId)),
  );
  return events.flatMap((event) => {
    const completed = event.activityTaskCompletedEventAttributes;
    const failed = event.activityTaskFailedEventAttributes;
    const scheduledId = String(completed?.scheduledEventId ?? failed?.scheduledEventId ?? '');
    if (!modelScheduled.has(scheduledId)) return [];
    if (failed) {
      // Its last attempt (failed attempts before it leave no event): the first.
      const started = events.find(
        (candidate) => String(candidate.eventId) === String(failed.startedEventId),
      );
      expect(started?.activityTaskStartedEventAttributes?.attempt).toBe(1);
      return [`failed: ${failed.failure?.applicationFailureInfo?.type ?? ''}`];
    }
    const payload = completed?.result?.payloads?.[0]?.data;
    const result = JSON.parse(Buffer.from(payload ?? new Uint8Array()).toString('utf8')) as object;
    return ['notCalled' in result ? 'left to pacing' : 'called'];
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

test('an unpaced provider: every model call goes on the job queue, the first unless paced', async () => {
  const taskQueue = await startWorker({});
  const job = await threeCallJob(taskQueue);

  expect(await modelCallQueues(job)).toEqual([
    `callModelUnlessPaced on ${taskQueue}`,
    `callModelWithStore on ${taskQueue}`,
    `callModelWithStore on ${taskQueue}`,
  ]);
  expect(await modelActivityOutcomes(job)).toEqual(['called', 'called', 'called']);
});

test('a paced provider: the worker leaves the first call to its queue, where every call is made', async () => {
  const taskQueue = await startWorker({ scripted: { concurrency: 4 } });
  const job = await threeCallJob(taskQueue);

  const provider = providerTaskQueue(taskQueue, 'scripted');
  expect(await modelCallQueues(job)).toEqual([
    `callModelUnlessPaced on ${taskQueue}`,
    `callModelWithStore on ${provider}`,
    `callModelWithStore on ${provider}`,
    `callModelWithStore on ${provider}`,
  ]);
  expect(await modelActivityOutcomes(job)).toEqual([
    'left to pacing',
    'called',
    'called',
    'called',
  ]);
});

test('a worker of an earlier release (no callModelUnlessPaced): the first call goes to the provider queue at once', async () => {
  const taskQueue = await startWorker({}, activitiesWithout('callModelUnlessPaced'));
  const job = await threeCallJob(taskQueue);

  expect(await modelCallQueues(job)).toEqual([
    `callModelUnlessPaced on ${taskQueue}`,
    `callModelWithStore on ${providerTaskQueue(taskQueue, 'scripted')}`,
    `callModelWithStore on ${taskQueue}`,
    `callModelWithStore on ${taskQueue}`,
  ]);
  // One attempt: "not registered on this worker" is not retried.
  expect(await modelActivityOutcomes(job)).toEqual([
    'failed: NotFoundError',
    'called',
    'called',
    'called',
  ]);
});

test('a setup over the threshold (system prompt and tools) is stored once: later calls of the run send its reference', async () => {
  const taskQueue = await startWorker({});
  const { job, requests } = await threeCallJobSeen(taskQueue, LONG_SYSTEM_PROMPT);

  expect(await modelCallQueues(job)).toEqual([
    `callModelUnlessPaced on ${taskQueue}`,
    `callModelOnStoredSetup on ${taskQueue}`,
    `callModelOnStoredSetup on ${taskQueue}`,
  ]);
  // R1: every call was made with the job's system prompt and tools.
  for (const request of requests) {
    expect(request.systemPrompt).toBe(LONG_SYSTEM_PROMPT);
    expect(request.tools.map((tool) => tool.name)).toEqual(['ls']);
  }
  // History holds the setup once: the later inputs carry its reference, not the prompt.
  const [first, ...later] = await modelCallInputs(job);
  expect(first?.input['systemPrompt']).toBe(LONG_SYSTEM_PROMPT);
  expect(first?.bytes).toBeGreaterThan(LONG_SYSTEM_PROMPT.length);
  for (const { input, bytes } of later) {
    expect(input['systemPrompt']).toBeUndefined();
    expect(input['tools']).toBeUndefined();
    expect(bytes).toBeLessThan(SETUP_BY_REFERENCE_FROM_CHARACTERS);
    expect(await store.getObject(input['setupRef'] as `sha256:${string}`)).toMatchObject({
      systemPrompt: LONG_SYSTEM_PROMPT,
      tools: [{ name: 'ls' }],
    });
  }
});

test('a small setup rides by value in every call (no store write for it)', async () => {
  const taskQueue = await startWorker({});
  const { job, requests } = await threeCallJobSeen(taskQueue);

  const inputs = await modelCallInputs(job);
  expect(inputs.map(({ input }) => input['setupRef'])).toEqual([undefined, undefined, undefined]);
  expect(inputs.map(({ input }) => input['systemPrompt'])).toEqual(
    requests.map((request) => request.systemPrompt),
  );
});

test('a paced provider: the stored setup goes by reference on the provider queue too', async () => {
  const taskQueue = await startWorker({ scripted: { concurrency: 4 } });
  const { job, requests } = await threeCallJobSeen(taskQueue, LONG_SYSTEM_PROMPT);

  const provider = providerTaskQueue(taskQueue, 'scripted');
  expect(await modelCallQueues(job)).toEqual([
    `callModelUnlessPaced on ${taskQueue}`,
    `callModelWithStore on ${provider}`,
    `callModelOnStoredSetup on ${provider}`,
    `callModelOnStoredSetup on ${provider}`,
  ]);
  expect(requests.map((request) => request.systemPrompt)).toEqual(
    Array(3).fill(LONG_SYSTEM_PROMPT),
  );
});

test('a worker of an earlier release (no callModelOnStoredSetup): the call is made again with the setup by value', async () => {
  const taskQueue = await startWorker({}, activitiesWithout('callModelOnStoredSetup'));
  const { job, requests } = await threeCallJobSeen(taskQueue, LONG_SYSTEM_PROMPT);

  expect(await modelCallQueues(job)).toEqual([
    `callModelUnlessPaced on ${taskQueue}`,
    `callModelOnStoredSetup on ${taskQueue}`,
    `callModelWithStore on ${taskQueue}`,
    `callModelWithStore on ${taskQueue}`,
  ]);
  expect(await modelActivityOutcomes(job)).toEqual([
    'called',
    'failed: NotFoundError',
    'called',
    'called',
  ]);
  expect(requests.map((request) => request.systemPrompt)).toEqual(
    Array(3).fill(LONG_SYSTEM_PROMPT),
  );
});

test('R20: a kept-open job sends its stored setup by reference in every agent run, not once a run', async () => {
  const taskQueue = await startWorker({});
  const workspace = temporaryFolder('dar-model-queue-');
  const { model, requestsFolder } = seenScriptedModel([
    { stopReason: 'stop', content: [text('first answer')] },
    { stopReason: 'toolUse', content: [toolCall('l1', 'ls', {})] },
    { stopReason: 'stop', content: [text('second answer')] },
  ]);
  const job = await startTestJob(
    { environment, taskQueue, store },
    jobInput({
      model,
      workspace,
      tools: ['ls'],
      systemPrompt: LONG_SYSTEM_PROMPT,
      keepOpenMs: 1_000,
    }),
  );
  await waitForPhase(job, 'waiting');
  await job.followUp('and list the files');
  const result = await job.result();
  expect(result.status.stopReason).toBe('stop');

  // The second agent run builds its tool descriptors anew; the setup is still known by value.
  expect(await modelCallQueues(job)).toEqual([
    `callModelUnlessPaced on ${taskQueue}`,
    `callModelOnStoredSetup on ${taskQueue}`,
    `callModelOnStoredSetup on ${taskQueue}`,
  ]);
  const [first, ...later] = await modelCallInputs(job);
  expect(first?.input['systemPrompt']).toBe(LONG_SYSTEM_PROMPT);
  for (const { input, bytes } of later) {
    expect(input['systemPrompt']).toBeUndefined();
    expect(bytes).toBeLessThan(SETUP_BY_REFERENCE_FROM_CHARACTERS);
  }
  // R1: the model got the whole setup on every call of both runs.
  for (const call of [0, 1, 2]) {
    const request = scriptedRequest(requestsFolder, call);
    expect(request.systemPrompt).toBe(LONG_SYSTEM_PROMPT);
    expect(request.tools.map((tool) => tool.name)).toEqual(['ls']);
  }
});
