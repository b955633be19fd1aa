import type { ServerResponse } from 'node:http';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { AgentJob } from '../../../src/client/job-client.js';
import type { JobStore } from '../../../src/store/job-store.js';
import { createProviderPauses } from '../../../src/activities/provider-pauses.js';
import { createAgentWorker } from '../../../src/worker/agent-worker.js';
import type { AgentWorker } from '../../../src/worker/agent-worker-group.js';
import type { ModelPacing } from '../../../src/worker/model-pacing.js';
import { RELEASE_FEATURES_PATCH } from '../../../src/workflows/release-features.js';
import {
  jobInput,
  openTestStore,
  startTestJob,
  temporaryFolder,
  testWorkflowsPath,
  uniqueName,
} from '../../support/agent-harness.js';
import { devServerSinglePartitionArgs } from '../../../src/server/dev-server-command.js';
import { startDevServer } from '../../support/temporal-server.js';
import { FakeModelServer, jsonReply, sseReply, type RecordedRequest } from './fake-model-server.js';
import { chatStream } from './openai-chat-stream.js';
import { historyText, resultOf } from './provider-rig.js';

/**
 * Rate pacing across jobs: the model calls of every job go through their provider's task queue,
 * which the worker polls with the provider's rate limit; a Retry-After on one job's call holds
 * the other calls to that provider. Real dev server, real HTTP to a fake OpenAI-compatible API.
 */

const MODEL = 'openai-compatible:some-model';
const RATE_PER_SECOND = 2;

let environment: TestWorkflowEnvironment;
let store: JobStore;
let fake: FakeModelServer;
const savedEnv = { ...process.env };
const running: { worker: AgentWorker; run: Promise<void> }[] = [];

/** An agent worker on a fresh task queue, running until the file ends. */
async function startWorker(options: {
  modelPacing: ModelPacing;
  pauseOnRetryAfter?: boolean;
}): Promise<string> {
  const taskQueue = uniqueName('rate-pacing');
  const worker = await createAgentWorker({
    connection: environment.nativeConnection,
    taskQueue,
    workflowsPath: testWorkflowsPath,
    store,
    // Its own pauses and learned rates: a refusal in one test must not pace the next.
    providerPauses: createProviderPauses(),
    ...options,
  });
  running.push({ worker, run: worker.run() });
  return taskQueue;
}

function startJob(taskQueue: string, prompt: string): Promise<AgentJob> {
  return startTestJob(
    { environment, taskQueue, store },
    jobInput({ model: MODEL, workspace: temporaryFolder('dar-pacing-'), prompt, tools: [] }),
  );
}

const answer = () => sseReply(chatStream({ finishReason: 'stop', text: ['done'] }));

/** When each request of the jobs with `prompt` reached the provider, in order. */
function arrivals(prompt: string): number[] {
  return fake.requests
    .filter((request) => JSON.stringify(request.body).includes(prompt))
    .map((request: RecordedRequest) => request.at);
}

beforeAll(async () => {
  // One partition per task queue, as a cluster should have for the model task queues (see the
  // README): with Temporal's default of four, the limit is split over them and comes in bursts.
  environment = await startDevServer(devServerSinglePartitionArgs());
  store = await openTestStore();
  fake = await FakeModelServer.start();
  process.env.DAR_OPENAI_BASE_URL = `${fake.url}/v1`;
  process.env.DAR_OPENAI_API_KEY = 'sk-test-pacing';
});

afterAll(async () => {
  for (const { worker } of running) worker.shutdown();
  await Promise.all(running.map(({ run }) => run));
  await fake?.close();
  await environment?.teardown();
  await store?.close();
  process.env = savedEnv;
});

beforeEach(() => fake.reset());

test('the model calls of many jobs reach the provider at the configured rate, not all at once', async () => {
  const taskQueue = await startWorker({
    modelPacing: { 'openai-compatible': { ratePerSecond: RATE_PER_SECOND } },
  });
  // The first model call of the process loads pi-ai (seconds): one job first, so that the
  // measured calls are not held back by it and then released together.
  fake.reply(answer());
  await resultOf(await startJob(taskQueue, 'warm-up'));
  await new Promise((resolve) => setTimeout(resolve, 1000));

  const jobs = 10;
  fake.reply(...Array.from({ length: jobs }, answer));
  const started = await Promise.all(
    Array.from({ length: jobs }, (_, index) => startJob(taskQueue, `paced job ${index}`)),
  );
  const results = await Promise.all(started.map((job) => resultOf(job)));
  expect(results.map((result) => result.status.stopReason)).toEqual(Array(jobs).fill('stop'));

  const times = arrivals('paced job').sort((a, b) => a - b);
  expect(times).toHaveLength(jobs);
  // Temporal's limiter lets a burst of about one second's worth through, then one call every
  // 1/rate seconds: ten calls at 2/s take more than three seconds, and no second sees more than
  // the burst and the next two (unpaced, all ten arrive within about a second).
  const spreadMs = (times.at(-1) ?? 0) - (times[0] ?? 0);
  expect(spreadMs).toBeGreaterThanOrEqual(3000);
  const busiestSecond = Math.max(
    ...times.map((start) => times.filter((time) => time >= start && time < start + 1000).length),
  );
  expect(busiestSecond).toBeLessThanOrEqual(5);

  // The model activity ran on the provider's task queue, recorded behind the release's patch.
  const history = await historyText(started[0]!.handle);
  expect(history).toContain(RELEASE_FEATURES_PATCH);
  expect(history).toContain(`${taskQueue}-model-openai-compatible`);
});

/**
 * One job's call is answered 429 with `Retry-After: 2`; two more jobs start right after. Returns
 * how long after the 429 each of their calls reached the provider.
 */
async function othersAfterRetryAfter(taskQueue: string, tag: string): Promise<number[]> {
  fake.reply(
    jsonReply(
      429,
      { error: { message: 'Rate limit reached for requests', type: 'rate_limit_error' } },
      { 'retry-after': '2' },
    ),
    answer(),
    answer(),
    answer(),
  );
  const first = await startJob(taskQueue, `${tag} first`);
  await fake.until(() => fake.requests.length === 1);
  const limitedAt = fake.requests[0]?.at ?? 0;
  // The worker pauses the provider as soon as the 429 reaches it (the same attempt then sends
  // the request again after the wait).
  await new Promise((resolve) => setTimeout(resolve, 300));
  const others = await Promise.all([
    startJob(taskQueue, `${tag} second`),
    startJob(taskQueue, `${tag} third`),
  ]);
  const results = await Promise.all([first, ...others].map((job) => resultOf(job)));
  expect(results.map((result) => result.status.stopReason)).toEqual(['stop', 'stop', 'stop']);
  expect(arrivals(`${tag} first`)).toHaveLength(2);
  return [...arrivals(`${tag} second`), ...arrivals(`${tag} third`)].map(
    (time) => time - limitedAt,
  );
}

test("a 429 with Retry-After on one job's call holds the other jobs' calls to that provider", async () => {
  const taskQueue = await startWorker({ modelPacing: {} });
  const delays = await othersAfterRetryAfter(taskQueue, 'held');
  expect(delays).toHaveLength(2);
  for (const delay of delays) expect(delay).toBeGreaterThanOrEqual(2000);
});

test('without the pause (pauseOnRetryAfter: false) the other calls go at once', async () => {
  const taskQueue = await startWorker({ modelPacing: {}, pauseOnRetryAfter: false });
  const delays = await othersAfterRetryAfter(taskQueue, 'unheld');
  expect(delays).toHaveLength(2);
  for (const delay of delays) expect(delay).toBeLessThan(2000);
});

/**
 * A provider over its limit: `perSecond` requests a second (a bucket of one second's requests,
 * refilled continuously), the rest answered 429 with `Retry-After: 1`, as the real ones do.
 */
function limitedProvider(perSecond: number, requests: number): void {
  let tokens = perSecond;
  let refilledAt = Date.now();
  const limited = jsonReply(
    429,
    { error: { message: 'Rate limit reached for requests', type: 'rate_limit_exceeded' } },
    { 'retry-after': '1' },
  );
  fake.reply(
    ...Array.from(
      { length: requests },
      () => (response: ServerResponse, recorded: RecordedRequest) => {
        const now = Date.now();
        tokens = Math.min(perSecond, tokens + ((now - refilledAt) / 1000) * perSecond);
        refilledAt = now;
        if (tokens < 1) return limited(response);
        tokens -= 1;
        return answer()(response, recorded);
      },
    ),
  );
}

/**
 * After a warm-up call, `jobs` jobs of one model call each, started at once against a provider
 * that takes 2 requests a second; each completes. Returns the jobs and how many requests of
 * theirs the provider refused.
 */
async function batchOverTheLimit(
  taskQueue: string,
  tag: string,
  jobs: number,
): Promise<{ started: AgentJob[]; refused: number }> {
  fake.reply(answer());
  await resultOf(await startJob(taskQueue, `${tag} warm-up`));
  // A second apart from the batch: the warm-up's request is not part of its first burst.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  limitedProvider(2, 1000);
  const started = await Promise.all(
    Array.from({ length: jobs }, (_, index) => startJob(taskQueue, `${tag} job ${index}`)),
  );
  const results = await Promise.all(started.map((job) => resultOf(job)));
  expect(results.map((result) => result.status.stopReason)).toEqual(Array(jobs).fill('stop'));
  return { started, refused: arrivals(`${tag} job`).length - jobs };
}

test("a batch over the provider's limit, with neither pacing nor pause, waits its turn: every job completes", async () => {
  const taskQueue = await startWorker({ modelPacing: {}, pauseOnRetryAfter: false });
  // 20 calls at once against 2 a second: ten seconds of work. Refused calls wait longer each
  // time, at random, inside their attempt; before that, six attempts a second apart gave up
  // within about six seconds and most of the batch failed.
  const { started, refused } = await batchOverTheLimit(taskQueue, 'unpaced', 20);
  expect(refused).toBeGreaterThan(0);
  // Each call was answered 200 once, and every job's model call took one activity attempt.
  for (const job of started) {
    const history = await historyText(job.handle);
    expect(history).not.toContain('ModelTransientError');
  }
}, 120_000);

test("a batch over the provider's limit with the worker's defaults: once refused, calls go at the rate the provider's answers showed", async () => {
  const taskQueue = await startWorker({ modelPacing: {} });
  // 20 calls at once against 2 a second: the first burst meets the limit (2 accepted, the rest
  // refused); from then on the worker sends them in line, at the 2 a second it saw.
  // Before the learned rate, the refused calls came back together after each pause and met
  // the limit again: 35 and 42 refused in two runs, 22 s for the batch.
  const jobs = 20;
  const { refused } = await batchOverTheLimit(taskQueue, 'learning', jobs);
  expect(refused).toBeGreaterThan(0);
  expect(refused).toBeLessThanOrEqual(jobs + 4);
}, 120_000);

test('a model of a provider without a task queue of its own fails at once on the jobs queue, never waits', async () => {
  const taskQueue = await startWorker({ modelPacing: {} });
  const job = await startTestJob(
    { environment, taskQueue, store },
    jobInput({ model: 'gemini:pro', workspace: temporaryFolder('dar-pacing-'), tools: [] }),
  );
  const result = await resultOf(job);
  expect(result.status.stopReason).toBe('error');
  expect(result.status.errorMessage).toMatch(/Unknown model provider "gemini"/);
  expect(fake.requests).toHaveLength(0);
});
