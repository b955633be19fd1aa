import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jsonReply, sseReply } from './fake-model-server.js';
import { responsesStream } from './openai-responses-stream.js';
import {
  ProviderRig,
  assistantMessages,
  historyText,
  randomKey,
  resultOf,
} from './provider-rig.js';

/**
 * `openai:` models go through pi-ai's OpenAI provider, which speaks the Responses API
 * (`POST /v1/responses`), here against a fake of that streamed protocol, in real jobs.
 */

let rig: ProviderRig;
const key = randomKey();
/** Known to pi-ai's registry: $0.40 / $1.60 per million input / output tokens. */
const MODEL = 'openai:gpt-4.1-mini';

beforeAll(async () => {
  rig = await ProviderRig.start('openai');
  rig.setEnv({
    OPENAI_BASE_URL: `${rig.fake.url}/v1`,
    OPENAI_API_KEY: key,
    OPENAI_API_KEY_FILE: undefined,
  });
});

afterAll(async () => {
  await rig?.stop();
});

beforeEach(() => rig.fake.reset());

test('a function call and a streamed answer over the Responses API, with usage and cost; R25', async () => {
  rig.fake.reply(
    sseReply(
      responsesStream(
        [
          {
            type: 'function_call',
            callId: 'call_abc',
            name: 'write',
            argumentChunks: ['{"path":"r.txt",', '"content":"from responses"}'],
          },
        ],
        { input: 2000, output: 500 },
      ),
    ),
    sseReply(
      responsesStream([{ type: 'message', chunks: ['Wrote ', 'it.'] }], { input: 10, output: 3 }),
    ),
  );
  const { job, folder } = await rig.startJob(MODEL);
  const result = await resultOf(job);

  expect(readFileSync(join(folder, 'r.txt'), 'utf8')).toBe('from responses');
  const [call, answer] = assistantMessages(result.messages);
  expect(call).toMatchObject({
    stopReason: 'toolUse',
    api: 'openai-responses',
    provider: 'openai',
    model: 'gpt-4.1-mini',
    content: [{ type: 'toolCall', name: 'write', arguments: { path: 'r.txt' } }],
    usage: { input: 2000, output: 500, totalTokens: 2500 },
  });
  expect(call?.usage.cost.input).toBeCloseTo(0.0008, 10);
  expect(call?.usage.cost.output).toBeCloseTo(0.0008, 10);
  expect(answer).toMatchObject({
    stopReason: 'stop',
    content: [{ type: 'text', text: 'Wrote it.' }],
  });
  expect(result.status.usage.totalTokens).toBe(2513);

  expect(rig.fake.requests.map((request) => request.path)).toEqual([
    '/v1/responses',
    '/v1/responses',
  ]);
  expect(rig.fake.requests.map((request) => request.headers.authorization)).toEqual([
    `Bearer ${key}`,
    `Bearer ${key}`,
  ]);
  const input = (rig.fake.requests[1]?.body as { input: Array<Record<string, unknown>> }).input;
  expect(input).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ type: 'function_call', call_id: 'call_abc', name: 'write' }),
      expect.objectContaining({ type: 'function_call_output', call_id: 'call_abc' }),
    ]),
  );
  expect(await historyText(job.handle)).not.toContain(key);
});

test('403 ends the run at once; an insufficient_quota 429 is not retried either', async () => {
  rig.fake.reply(
    jsonReply(403, {
      error: { message: 'Project does not have access to model', type: 'invalid_request_error' },
    }),
  );
  const denied = await rig.startJob(MODEL);
  const deniedResult = await resultOf(denied.job);
  expect(rig.fake.requests).toHaveLength(1);
  expect(deniedResult.status.errorMessage).toContain('Project does not have access to model');

  rig.fake.reset();
  rig.fake.reply(
    jsonReply(429, {
      error: {
        message: 'You exceeded your current quota',
        type: 'insufficient_quota',
        code: 'insufficient_quota',
      },
    }),
  );
  const broke = await rig.startJob(MODEL);
  const brokeResult = await resultOf(broke.job);
  expect(rig.fake.requests).toHaveLength(1);
  expect(brokeResult.status.stopReason).toBe('error');
  expect(brokeResult.status.errorMessage).toContain('exceeded your current quota');
});

test('R3: a Responses stream that ends before response.completed is a cut answer: its function call never runs, the request is sent again', async () => {
  const whole = responsesStream(
    [
      {
        type: 'function_call',
        callId: 'call_cut',
        name: 'bash',
        argumentChunks: ['{"command":"echo SAFE > trunc"}'],
      },
    ],
    { input: 10, output: 3 },
  );
  // Everything but the final event: the call is whole, the answer is not.
  const cut = whole.filter((event) => event.event !== 'response.completed');
  expect(cut).toHaveLength(whole.length - 1);
  rig.fake.reply(
    sseReply(cut),
    sseReply(
      responsesStream([{ type: 'message', chunks: ['Nothing run.'] }], { input: 10, output: 3 }),
    ),
  );
  const { job, folder } = await rig.startJob(MODEL);
  const result = await resultOf(job);

  expect(() => readFileSync(join(folder, 'trunc'))).toThrow('ENOENT');
  expect(assistantMessages(result.messages).map((message) => message.stopReason)).toEqual(['stop']);
  expect(rig.fake.requests).toHaveLength(2);
  expect(await historyText(job.handle)).toContain(
    "the provider's stream ended before the answer did",
  );
});
