import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { temporaryFolder } from '../../support/agent-harness.js';
import { anthropicError, anthropicStream } from './anthropic-stream.js';
import { jsonReply, sseReply } from './fake-model-server.js';
import {
  ProviderRig,
  assistantMessages,
  historyText,
  randomKey,
  resultOf,
  textOfResult,
  toolResults,
} from './provider-rig.js';

/**
 * `anthropic:` models through pi-ai's real Anthropic provider, against a fake Messages API
 * speaking the streamed protocol, in real jobs on a real Temporal dev server.
 */

let rig: ProviderRig;
const key = randomKey();
/** Known to pi-ai's registry: $1 / $5 per million input / output tokens. */
const KNOWN_MODEL = 'anthropic:claude-haiku-4-5';
/** Not in the registry: the provider builds a model for it (no prices). */
const NEW_MODEL = 'anthropic:claude-from-the-future';

beforeAll(async () => {
  rig = await ProviderRig.start('anthropic');
  rig.setEnv({
    ANTHROPIC_BASE_URL: rig.fake.url,
    ANTHROPIC_API_KEY: key,
    ANTHROPIC_API_KEY_FILE: undefined,
  });
});

afterAll(async () => {
  await rig?.stop();
});

beforeEach(() => {
  rig.fake.reset();
  rig.setEnv({ ANTHROPIC_API_KEY: key, ANTHROPIC_API_KEY_FILE: undefined });
});

test('a streamed text answer, with tokens and cost on the message and in the job status', async () => {
  rig.fake.reply(
    sseReply(
      anthropicStream([{ type: 'text', chunks: ['Hello', ', ', 'world'] }], {
        stopReason: 'end_turn',
        inputTokens: 1000,
        outputTokens: 200,
      }),
    ),
  );
  const { job } = await rig.startJob(KNOWN_MODEL, 'say hello');
  const result = await resultOf(job);

  const [answer] = assistantMessages(result.messages);
  expect(answer).toMatchObject({
    content: [{ type: 'text', text: 'Hello, world' }],
    stopReason: 'stop',
    api: 'anthropic-messages',
    provider: 'anthropic',
    model: 'claude-haiku-4-5',
    usage: { input: 1000, output: 200, totalTokens: 1200 },
  });
  expect(answer?.usage.cost.input).toBeCloseTo(0.001, 10);
  expect(answer?.usage.cost.output).toBeCloseTo(0.001, 10);
  expect(answer?.usage.cost.total).toBeCloseTo(0.002, 10);
  expect(result.status.usage.totalTokens).toBe(1200);
  expect(result.status.usage.cost.total).toBeCloseTo(0.002, 10);

  expect(rig.fake.requests).toHaveLength(1);
  const request = rig.fake.requests[0];
  expect(request).toMatchObject({ method: 'POST', path: '/v1/messages' });
  expect(request?.headers['x-api-key']).toBe(key);
  expect(request?.body).toMatchObject({
    model: 'claude-haiku-4-5',
    stream: true,
    messages: [{ role: 'user', content: [{ type: 'text', text: 'say hello' }] }],
  });
  // The job's tools are offered to the model.
  const tools = (request?.body as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
  expect(tools).toEqual(expect.arrayContaining(['read', 'write', 'edit', 'ls', 'bash']));
});

test('a tool call runs, and the next request carries its result (model id unknown to pi-ai)', async () => {
  rig.fake.reply(
    sseReply(
      anthropicStream(
        [
          { type: 'text', chunks: ['Writing the file.'] },
          {
            type: 'tool_use',
            id: 'toolu_01',
            name: 'write',
            jsonChunks: ['{"path": "hello', '.txt", "content": ', '"hi from the model\\n"}'],
          },
        ],
        { stopReason: 'tool_use' },
      ),
    ),
    sseReply(anthropicStream([{ type: 'text', chunks: ['Done.'] }], { stopReason: 'end_turn' })),
  );
  const { job, folder } = await rig.startJob(NEW_MODEL);
  const result = await resultOf(job);

  expect(readFileSync(join(folder, 'hello.txt'), 'utf8')).toBe('hi from the model\n');
  const [first, second] = assistantMessages(result.messages);
  expect(first?.stopReason).toBe('toolUse');
  expect(first?.content[1]).toEqual({
    type: 'toolCall',
    id: 'toolu_01',
    name: 'write',
    arguments: { path: 'hello.txt', content: 'hi from the model\n' },
  });
  expect(second).toMatchObject({ stopReason: 'stop', content: [{ type: 'text', text: 'Done.' }] });
  // Unknown id: tokens are counted, but pi-ai has no prices for it.
  expect(first?.usage).toMatchObject({ input: 10, output: 5, totalTokens: 15 });
  expect(first?.usage.cost.total).toBe(0);

  expect(rig.fake.requests).toHaveLength(2);
  const body = rig.fake.requests[1]?.body as { model: string; messages: unknown[] };
  expect(body.model).toBe('claude-from-the-future');
  expect(body.messages).toEqual([
    expect.objectContaining({ role: 'user' }),
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Writing the file.' },
        {
          type: 'tool_use',
          id: 'toolu_01',
          name: 'write',
          input: { path: 'hello.txt', content: 'hi from the model\n' },
        },
      ],
    },
    {
      role: 'user',
      content: [
        expect.objectContaining({
          type: 'tool_result',
          tool_use_id: 'toolu_01',
          is_error: false,
          content: expect.stringContaining('hello.txt') as unknown,
        }),
      ],
    },
  ]);
});

test('R3: output cut by max_tokens inside tool-call arguments ends as "length"; the call never runs', async () => {
  rig.fake.reply(
    sseReply(
      anthropicStream(
        [
          {
            type: 'tool_use',
            id: 'toolu_cut',
            name: 'write',
            // Salvageable as {"path": "cut.txt", "content": "the beginn"}: valid, and still refused.
            jsonChunks: ['{"path": "cut.txt", ', '"content": "the beginn'],
          },
        ],
        { stopReason: 'max_tokens' },
      ),
    ),
    sseReply(
      anthropicStream([{ type: 'text', chunks: ['Understood.'] }], { stopReason: 'end_turn' }),
    ),
  );
  const { job, folder } = await rig.startJob(NEW_MODEL);
  const result = await resultOf(job);

  const [cut, next] = assistantMessages(result.messages);
  expect(cut?.stopReason).toBe('length');
  expect(cut?.content).toEqual([expect.objectContaining({ type: 'toolCall', id: 'toolu_cut' })]);
  expect(existsSync(join(folder, 'cut.txt'))).toBe(false);
  const [failed] = toolResults(result.messages);
  expect(failed).toMatchObject({ toolCallId: 'toolu_cut', isError: true });
  expect(textOfResult(failed)).toContain('output token limit');
  expect(next?.stopReason).toBe('stop');

  const events = await job.events(0);
  const toolEvents = events.filter((event) => event.type.startsWith('tool_execution'));
  expect(toolEvents.map((event) => event.type)).toEqual([
    'tool_execution_start',
    'tool_execution_end',
  ]);
  // The next model call happened and saw the failure.
  expect(rig.fake.requests).toHaveLength(2);
  expect(JSON.stringify(rig.fake.requests[1]?.body)).toContain('output token limit');
});

test('429 with Retry-After: 1 is sent again after about a second, then the job finishes', async () => {
  rig.fake.reply(
    jsonReply(
      429,
      anthropicError('rate_limit_error', 'Number of requests has exceeded your rate limit'),
      {
        'retry-after': '1',
      },
    ),
    sseReply(anthropicStream([{ type: 'text', chunks: ['Made it.'] }], { stopReason: 'end_turn' })),
  );
  const { job } = await rig.startJob(KNOWN_MODEL);
  const result = await resultOf(job);

  expect(result.messages.at(-1)).toMatchObject({ role: 'assistant', stopReason: 'stop' });
  expect(assistantMessages(result.messages)).toHaveLength(1);
  expect(rig.fake.requests).toHaveLength(2);
  const waited = (rig.fake.requests[1]?.at ?? 0) - (rig.fake.requests[0]?.at ?? 0);
  expect(waited).toBeGreaterThanOrEqual(900);
  expect(waited).toBeLessThan(5000);
});

test('401 ends the run at once with stopReason "error" and the provider\'s message', async () => {
  rig.fake.reply(jsonReply(401, anthropicError('authentication_error', 'invalid x-api-key')));
  const started = Date.now();
  const { job } = await rig.startJob(KNOWN_MODEL);
  const result = await resultOf(job);

  expect(Date.now() - started).toBeLessThan(10_000);
  expect(rig.fake.requests).toHaveLength(1);
  const last = result.messages.at(-1);
  expect(last).toMatchObject({ role: 'assistant', stopReason: 'error' });
  const errorMessage = last?.role === 'assistant' ? last.errorMessage : undefined;
  expect(errorMessage).toContain('401');
  expect(errorMessage).toContain('invalid x-api-key');
  expect(result.status).toMatchObject({ stopReason: 'error', errorMessage });
  const events = await job.events(0);
  expect(events.map((event) => event.type).slice(-2)).toEqual(['turn_end', 'agent_end']);
});

test('a missing key ends the run with an error naming the variable; a key file is read', async () => {
  rig.setEnv({ ANTHROPIC_API_KEY: undefined });
  const { job } = await rig.startJob(KNOWN_MODEL);
  const result = await resultOf(job);
  expect(rig.fake.requests).toHaveLength(0);
  expect(result.status.stopReason).toBe('error');
  expect(result.status.errorMessage).toContain('ANTHROPIC_API_KEY');
  expect(result.status.modelCalls).toBe(1);

  const fileKey = randomKey();
  const keyFile = join(temporaryFolder('dar-key-'), 'anthropic.key');
  writeFileSync(keyFile, `${fileKey}\n`);
  rig.setEnv({ ANTHROPIC_API_KEY_FILE: keyFile });
  rig.fake.reply(
    sseReply(anthropicStream([{ type: 'text', chunks: ['ok'] }], { stopReason: 'end_turn' })),
  );
  const second = await rig.startJob(KNOWN_MODEL);
  const secondResult = await resultOf(second.job);
  expect(secondResult.status.stopReason).toBe('stop');
  expect(rig.fake.requests[0]?.headers['x-api-key']).toBe(fileKey);
});

test('R25: the key reaches the provider, and never the workflow history, even when echoed back', async () => {
  const secret = randomKey();
  rig.setEnv({ ANTHROPIC_API_KEY: secret });
  rig.fake.reply(
    // A retried failure lands in history as the activity's last failure.
    jsonReply(429, anthropicError('rate_limit_error', `Too many requests for key ${secret}`)),
    sseReply(
      anthropicStream([{ type: 'text', chunks: ['Your key is ', secret] }], {
        stopReason: 'end_turn',
      }),
    ),
    jsonReply(401, anthropicError('authentication_error', `invalid x-api-key: ${secret}`)),
  );
  const { job } = await rig.startJob(KNOWN_MODEL);
  const result = await resultOf(job);
  const second = await rig.startJob(KNOWN_MODEL);
  const secondResult = await resultOf(second.job);

  expect(rig.fake.requests.map((request) => request.headers['x-api-key'])).toEqual([
    secret,
    secret,
    secret,
  ]);
  expect(result.messages.at(-1)).toMatchObject({
    stopReason: 'stop',
    content: [{ type: 'text', text: 'Your key is [redacted]' }],
  });
  expect(secondResult.status.errorMessage).toContain('invalid x-api-key: [redacted]');
  for (const handle of [job.handle, second.job.handle]) {
    const history = await historyText(handle);
    expect(history).toContain('[redacted]');
    expect(history).not.toContain(secret);
  }
  expect(rig.storeText()).toContain('Your key is [redacted]');
  expect(rig.storeText()).not.toContain(secret);
});

test('R21: cancelling during a slow streamed answer aborts the HTTP request; the run ends aborted', async () => {
  rig.fake.reply(
    sseReply(
      anthropicStream([{ type: 'text', chunks: ['Thinking', ' very', ' slowly'] }], {
        stopReason: 'end_turn',
      }).slice(0, 4),
      { delayMs: 200, stall: true },
    ),
  );
  const { job } = await rig.startJob(KNOWN_MODEL);
  await rig.fake.until(() => rig.fake.requests.length === 1);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  expect(rig.fake.requests[0]?.closedEarly).toBe(false);

  const cancelledAt = Date.now();
  await job.cancel();
  await rig.fake.until(() => rig.fake.requests[0]?.closedEarly === true, 10_000);
  const closedAfterMs = Date.now() - cancelledAt;
  await expect(job.handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);

  expect(closedAfterMs).toBeLessThan(5000);
  expect(rig.fake.requests).toHaveLength(1);
  const messages = await job.transcript();
  expect(messages.at(-1)).toMatchObject({ role: 'assistant', stopReason: 'aborted' });
  const events = await job.events(0);
  expect(events.map((event) => event.type).slice(-2)).toEqual(['turn_end', 'agent_end']);
});
