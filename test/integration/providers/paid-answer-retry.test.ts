/**
 * A retry of a paid model call returns the answer its earlier attempt stored, at the activity's
 * level: the same activity (run and activity id) on attempt 2 makes no request; another
 * activity does. For the turn's model call and for the compaction summary. A real
 * OpenAI-compatible server on 127.0.0.1 counts the requests; a real file store keeps the answer
 * and the record. (The whole path with a SIGKILLed worker: test/e2e/model-answer-crash.test.ts.)
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { makeCompactContext } from '../../../src/activities/compact-context.js';
import {
  createStoreActivities,
  type CallModelWithStoreResult,
} from '../../../src/activities/store-activities.js';
import type { Message } from '../../../src/core/index.js';
import { FileJobStore } from '../../../src/store/file/file-job-store.js';
import type { ObjectRef } from '../../../src/store/references.js';
import { cachedReader } from '../../../src/transcript/cached-reader.js';
import { FakeModelServer, sseReply } from './fake-model-server.js';
import { chatStream } from './openai-chat-stream.js';
import { randomKey } from './provider-rig.js';

const MODEL = 'openai-compatible:some-model';
let fake: FakeModelServer;
let store: FileJobStore;
const saved = { url: process.env.DAR_OPENAI_BASE_URL, key: process.env.DAR_OPENAI_API_KEY };

beforeAll(async () => {
  fake = await FakeModelServer.start();
  process.env.DAR_OPENAI_BASE_URL = `${fake.url}/v1`;
  process.env.DAR_OPENAI_API_KEY = randomKey();
  store = await FileJobStore.open({ folder: mkdtempSync(join(tmpdir(), 'dar-paid-')) });
});

afterAll(async () => {
  for (const [name, value] of [
    ['DAR_OPENAI_BASE_URL', saved.url],
    ['DAR_OPENAI_API_KEY', saved.key],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await store.close();
  await fake.close();
});

beforeEach(() => fake.reset());

const user = (text: string): Message => ({ role: 'user', content: text, timestamp: 1 });

/** The same activity as far as Temporal is concerned: same run, same activity id. */
const attempt = (number: number, activityId = 'model-call-1') =>
  new MockActivityEnvironment({ attempt: number, activityId });

test('R24: the turn model call, retried after its answer was stored, returns that answer and asks nothing', async () => {
  fake.reply(sseReply(chatStream({ finishReason: 'stop', text: ['Paid ', 'once.'] })));
  const activities = createStoreActivities(store, () => Promise.reject(new Error('no tools')));
  const input = {
    jobId: `paid-${crypto.randomUUID()}`,
    model: MODEL,
    callIndex: 0,
    systemPrompt: 'You help.',
    tools: [],
    transcript: { pointer: { head: null, count: 0 }, unstored: [user('hello')] },
  };

  const first: CallModelWithStoreResult = await attempt(1).run(
    activities.callModelWithStore,
    input,
  );
  const retried = await attempt(2).run(activities.callModelWithStore, input);
  expect(fake.requests).toHaveLength(1);
  expect(retried).toEqual(first);
  expect(await store.getObject(first.message.ref as ObjectRef)).toMatchObject({
    content: [{ type: 'text', text: 'Paid once.' }],
  });

  // Another call of the same job (another activity) is a new request.
  fake.reply(sseReply(chatStream({ finishReason: 'stop', text: ['Second.'] })));
  await attempt(2, 'model-call-2').run(activities.callModelWithStore, input);
  expect(fake.requests).toHaveLength(2);
});

test('R24: the compaction summary, retried after it was stored, is that summary; no second request', async () => {
  fake.reply(sseReply(chatStream({ finishReason: 'stop', text: ['THE-SUMMARY'] })));
  const compact = makeCompactContext(store, cachedReader(store));
  const input = {
    jobId: `paid-${crypto.randomUUID()}`,
    model: MODEL,
    callIndex: 1,
    transcript: {
      pointer: { head: null, count: 0 },
      unstored: [user(`old ${'x'.repeat(8000)}`), user('recent')],
    },
    keepRecentTokens: 10,
    maximumInputTokens: 100_000,
  };

  const first = await attempt(1, 'compaction').run(compact, input);
  const retried = await attempt(2, 'compaction').run(compact, input);
  expect(first).toMatchObject({ compacted: true });
  expect(fake.requests).toHaveLength(1);
  expect(retried).toEqual(first);
});
