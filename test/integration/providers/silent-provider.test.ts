import type { ServerResponse } from 'node:http';
import { anthropicStream } from './anthropic-stream.js';
import { sseReply, type SseEvent } from './fake-model-server.js';
import type { Message } from '../../../src/core/index.js';
import { ProviderRig, assistantMessages, randomKey, resultOf } from './provider-rig.js';

/**
 * A provider that stops sending in the middle of a model call: the call's heartbeat goes on
 * while the worker lives, so only the worker can see the silence. `DAR_MODEL_IDLE_TIMEOUT`
 * bounds it (here 2 s, read by the in-process worker on each call); every byte counts as a sign
 * of life, Anthropic's `ping` keep-alives included. Real jobs on a real dev server, pi-ai's real
 * Anthropic provider, a fake Messages API on 127.0.0.1.
 */

let rig: ProviderRig;
const MODEL = 'anthropic:claude-haiku-4-5';
const IDLE_LIMIT_MS = 2000;

beforeAll(async () => {
  rig = await ProviderRig.start('silent-provider');
  rig.setEnv({
    ANTHROPIC_BASE_URL: rig.fake.url,
    ANTHROPIC_API_KEY: randomKey(),
    ANTHROPIC_API_KEY_FILE: undefined,
  });
});

afterAll(async () => {
  await rig?.stop();
});

beforeEach(() => {
  rig.fake.reset();
  rig.setEnv({ DAR_MODEL_IDLE_TIMEOUT: `${IDLE_LIMIT_MS}ms` });
});

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

function answer(text: string): SseEvent[] {
  return anthropicStream([{ type: 'text', chunks: [text] }], { stopReason: 'end_turn' });
}

/** The text of the job's last answer. */
function answerText(messages: Message[]): string {
  const last = assistantMessages(messages).at(-1);
  return (last?.content ?? []).map((block) => (block.type === 'text' ? block.text : '')).join('');
}

function write(response: ServerResponse, events: SseEvent[]): void {
  for (const event of events) {
    response.write(`event: ${event.event ?? 'message'}\ndata: ${event.data}\n\n`);
  }
}

/** `message_start`, then `silentMs` with only a `ping` every `pingEveryMs` (none if 0), then the rest. */
function pausedReply(events: SseEvent[], silentMs: number, pingEveryMs: number) {
  return async (response: ServerResponse) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    write(response, events.slice(0, 1));
    const resumeAt = Date.now() + silentMs;
    while (Date.now() < resumeAt && !response.destroyed) {
      await sleep(pingEveryMs || silentMs);
      if (pingEveryMs) write(response, [{ event: 'ping', data: '{"type": "ping"}' }]);
    }
    if (response.destroyed) return;
    write(response, events.slice(1));
    response.end();
  };
}

test('a stream that goes silent after its first events is stopped after the idle limit and sent again; the job completes with the second answer', async () => {
  let releaseSecond!: () => void;
  const secondMayAnswer = new Promise<void>((resolve) => (releaseSecond = resolve));
  rig.fake.reply(
    sseReply(answer('never finished').slice(0, 4), { stall: true }),
    async (response) => {
      await secondMayAnswer;
      await sseReply(answer('second answer'))(response, rig.fake.requests[1]!);
    },
  );
  const { job } = await rig.startJob(MODEL, 'say something');

  try {
    await rig.fake.until(() => rig.fake.requests.length === 2, 30_000);
    const [first, second] = rig.fake.requests;
    // The first request was given up by the worker, once the limit had passed.
    expect(first?.closedEarly).toBe(true);
    const gapMs = (second?.at ?? 0) - (first?.at ?? 0);
    expect(gapMs).toBeGreaterThanOrEqual(IDLE_LIMIT_MS);
    expect(gapMs).toBeLessThan(IDLE_LIMIT_MS + 8000);
    // What an operator sees on the job meanwhile: the attempt's failure names the silence.
    const pending = (await job.handle.describe()).raw.pendingActivities ?? [];
    const modelCall = pending.find((activity) =>
      activity.activityType?.name?.startsWith('callModel'),
    );
    expect(modelCall?.lastFailure?.message).toMatch(
      /^anthropic model claude-haiku-4-5: nothing came from the provider \(http:\/\/127\.0\.0\.1:\d+\) for 2 s: the request was stopped, to be sent again \(DAR_MODEL_IDLE_TIMEOUT sets this limit\)$/,
    );
  } finally {
    releaseSecond();
  }

  const result = await resultOf(job);
  expect(result.status.stopReason).toBe('stop');
  expect(answerText(result.messages)).toBe('second answer');
  expect(assistantMessages(result.messages)).toHaveLength(1);
  expect(rig.fake.requests).toHaveLength(2);
});

test('a provider that never answers the request (no headers) is stopped after the idle limit too', async () => {
  rig.fake.reply(() => undefined, sseReply(answer('answered at last')));
  const { job } = await rig.startJob(MODEL, 'say something');
  const result = await resultOf(job);

  expect(answerText(result.messages)).toBe('answered at last');
  expect(rig.fake.requests).toHaveLength(2);
  expect(rig.fake.requests[0]?.closedEarly).toBe(true);
});

test('keep-alives count as signs of life: pings for twice the limit, then the answer, in one request', async () => {
  rig.fake.reply(pausedReply(answer('worth the wait'), 2 * IDLE_LIMIT_MS, 400));
  const { job } = await rig.startJob(MODEL, 'say something');
  const result = await resultOf(job);

  expect(answerText(result.messages)).toBe('worth the wait');
  expect(rig.fake.requests).toHaveLength(1);
  expect(rig.fake.requests[0]?.closedEarly).toBe(false);
});

test('the same silence without pings is over the limit: stopped and sent again', async () => {
  rig.fake.reply(
    pausedReply(answer('too late'), 2 * IDLE_LIMIT_MS, 0),
    sseReply(answer('on time')),
  );
  const { job } = await rig.startJob(MODEL, 'say something');
  const result = await resultOf(job);

  expect(answerText(result.messages)).toBe('on time');
  expect(rig.fake.requests).toHaveLength(2);
  expect(rig.fake.requests[0]?.closedEarly).toBe(true);
});

test('DAR_MODEL_IDLE_TIMEOUT=off: the same silence is waited out, in one request', async () => {
  rig.setEnv({ DAR_MODEL_IDLE_TIMEOUT: 'off' });
  rig.fake.reply(pausedReply(answer('patience pays'), 2 * IDLE_LIMIT_MS, 0));
  const { job } = await rig.startJob(MODEL, 'say something');
  const result = await resultOf(job);

  expect(answerText(result.messages)).toBe('patience pays');
  expect(rig.fake.requests).toHaveLength(1);
});
