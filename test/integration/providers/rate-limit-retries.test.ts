import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { callModel } from '../../../src/activities/call-model.js';
import { createProviderPauses, noProviderPauses } from '../../../src/activities/provider-pauses.js';
import type { AssistantMessage } from '../../../src/core/index.js';
import { FakeModelServer, jsonReply, sseReply } from './fake-model-server.js';
import { chatStream } from './openai-chat-stream.js';

/**
 * A request the provider refused with `Retry-After` (429, 503) is sent again by the same model
 * activity attempt, after a wait that grows with each refusal and is spread at random, until the
 * waits would pass a minute; then the attempt fails, retryable after its next wait. Real HTTP to
 * a fake OpenAI-compatible API, the activity run in Temporal's mock activity environment.
 */

const MODEL = 'openai-compatible:some-model';
const request = { systemPrompt: 'x', messages: [], tools: [] };
let fake: FakeModelServer;
const savedEnv = { ...process.env };

const rateLimited = (retryAfter: string) =>
  jsonReply(
    429,
    { error: { message: 'Rate limit reached for requests', type: 'rate_limit_error' } },
    { 'retry-after': retryAfter },
  );
const answer = () => sseReply(chatStream({ finishReason: 'stop', text: ['done'] }));

beforeAll(async () => {
  fake = await FakeModelServer.start();
  process.env.DAR_OPENAI_BASE_URL = `${fake.url}/v1`;
  process.env.DAR_OPENAI_API_KEY = 'sk-test-rate-limit';
  // pi-ai loads on the first call (seconds): not inside a measured one.
  fake.reply(answer());
  await new MockActivityEnvironment().run(callModel, { model: MODEL, request }, noProviderPauses);
});

afterAll(async () => {
  await fake?.close();
  process.env = savedEnv;
});

beforeEach(() => fake.reset());

test('two refusals are sent again by the same attempt, each after a longer wait, and pause the provider', async () => {
  fake.reply(rateLimited('0.2'), rateLimited('0.2'), answer());
  const pauses = createProviderPauses();
  const streamed: unknown[] = [];
  const message: AssistantMessage = await new MockActivityEnvironment().run(
    callModel,
    { model: MODEL, request },
    pauses,
    { onStreamEvent: (event: unknown) => streamed.push(event) },
  );
  expect(message.stopReason).toBe('stop');
  expect(fake.requests).toHaveLength(3);
  // The live stream (as a job's model call has it) got the answer that came through.
  expect(JSON.stringify(streamed)).toContain('done');
  const [first, second, third] = fake.requests.map((recorded) => recorded.at) as [
    number,
    number,
    number,
  ];
  // The provider asked for 0.2 s; the first wait is at least a second, the next at least two,
  // each spread over up to half as long again.
  expect(second - first).toBeGreaterThanOrEqual(990);
  // (The upper bounds leave room for a loaded machine: they only show the waits are not longer.)
  expect(second - first).toBeLessThan(1500 + 4000);
  expect(third - second).toBeGreaterThanOrEqual(1990);
  expect(third - second).toBeLessThan(3000 + 4000);
});

test('a Retry-After longer than the call may wait fails the attempt at once, retryable after it', async () => {
  fake.reply(rateLimited('70'));
  const started = Date.now();
  const failure = await new MockActivityEnvironment()
    .run(callModel, { model: MODEL, request }, noProviderPauses)
    .catch((error: unknown) => error);
  expect(Date.now() - started).toBeLessThan(5000);
  expect(fake.requests).toHaveLength(1);
  expect(failure).toBeInstanceOf(ApplicationFailure);
  const applicationFailure = failure as ApplicationFailure;
  expect(applicationFailure.type).toBe('ModelTransientError');
  expect(applicationFailure.nonRetryable).toBe(false);
  expect(applicationFailure.message).toContain('429');
  const delay = Number(applicationFailure.nextRetryDelay);
  expect(delay).toBeGreaterThanOrEqual(70_000);
  expect(delay).toBeLessThan(105_000);
});

test('a later attempt starts with a longer wait', async () => {
  fake.reply(rateLimited('0.1'), answer());
  await new MockActivityEnvironment({ attempt: 3 }).run(
    callModel,
    { model: MODEL, request },
    noProviderPauses,
  );
  const [first, second] = fake.requests.map((recorded) => recorded.at) as [number, number];
  // Two refusals before this attempt's first: a wait of four seconds or more.
  expect(second - first).toBeGreaterThanOrEqual(3990);
});

test('a cancellation during the wait ends the call at once, without another request', async () => {
  fake.reply(rateLimited('0.1'), answer());
  const environment = new MockActivityEnvironment();
  const call = environment
    .run(callModel, { model: MODEL, request }, noProviderPauses)
    .catch((error: unknown) => error);
  await fake.until(() => fake.requests.length === 1);
  const cancelledAt = Date.now();
  environment.cancel();
  const failure = await call;
  expect(Date.now() - cancelledAt).toBeLessThan(1000);
  expect(String(failure)).toMatch(/cancel/i);
  // The wait would have ended within 1.5 s of the refusal: no request after it either.
  await new Promise((resolve) => setTimeout(resolve, 2500));
  expect(fake.requests).toHaveLength(1);
});

test('a paced provider: a refusal fails the attempt at once (the retry goes through its queue again), after a spread wait', async () => {
  fake.reply(rateLimited('1'));
  const pauses = createProviderPauses();
  const started = Date.now();
  const failure = await new MockActivityEnvironment()
    .run(callModel, { model: MODEL, request }, pauses, { paced: true })
    .catch((error: unknown) => error);
  expect(Date.now() - started).toBeLessThan(5000);
  // Sent again by the attempt, the request would have found no reply queued (a second request).
  expect(fake.requests).toHaveLength(1);
  const delay = Number((failure as ApplicationFailure).nextRetryDelay);
  expect(delay).toBeGreaterThanOrEqual(1000);
  expect(delay).toBeLessThan(1500);
  // The other calls of this process to the provider wait out what it asked for.
  expect(pauses.remaining('openai-compatible')).toBeGreaterThan(500);
});

test('a request that failed after streaming part of an answer is not sent again by the attempt', async () => {
  // Part of an answer, then a transient error naming a wait: the live stream has shown the part.
  const [first] = chatStream({ finishReason: 'stop', text: [] });
  fake.reply(
    sseReply([
      first!,
      { data: first!.data.replace('"content":""', '"content":"Half an ans"') },
      {
        data: JSON.stringify({
          error: {
            message: 'The server is overloaded (server_error), please try again in 1s',
            type: 'server_error',
          },
        }),
      },
    ]),
    answer(),
  );
  const streamed: unknown[] = [];
  const pauses = createProviderPauses();
  const failure = await new MockActivityEnvironment()
    .run(callModel, { model: MODEL, request }, pauses, {
      onStreamEvent: (event: unknown) => streamed.push(event),
    })
    .catch((error: unknown) => error);
  expect(streamed.some((event) => JSON.stringify(event).includes('Half an ans'))).toBe(true);
  expect(fake.requests).toHaveLength(1);
  expect(failure).toBeInstanceOf(ApplicationFailure);
  expect((failure as ApplicationFailure).nonRetryable).toBe(false);
  // Retried by Temporal after a spread wait; the provider's other calls wait out what it asked.
  const delay = Number((failure as ApplicationFailure).nextRetryDelay);
  expect(delay).toBeGreaterThanOrEqual(1000);
  expect(delay).toBeLessThan(1500);
  expect(pauses.remaining('openai-compatible')).toBeGreaterThan(500);
});
