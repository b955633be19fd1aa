import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAXIMUM_STREAMED_ANSWER_LENGTH } from '../../../src/core/limits.js';
import { MAXIMUM_STREAM_LINE_BYTES } from '../../../src/providers/http-observer.js';
import { jsonReply, sseReply } from './fake-model-server.js';
import { chatStream } from './openai-chat-stream.js';
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
 * `openai-compatible:` models (Ollama, vLLM, LM Studio, ...) through pi-ai's Chat Completions
 * provider, against a fake server speaking the streamed protocol, in real jobs.
 */

let rig: ProviderRig;
const key = randomKey();
/** The user's real OpenAI key: it must never be sent to a compatible server. */
const openAiKey = randomKey();
const MODEL = 'openai-compatible:some-model';

beforeAll(async () => {
  rig = await ProviderRig.start('openai-compatible');
  rig.setEnv({ DAR_OPENAI_BASE_URL: `${rig.fake.url}/v1`, OPENAI_API_KEY: openAiKey });
});

afterAll(async () => {
  await rig?.stop();
});

beforeEach(() => {
  rig.fake.reset();
  rig.setEnv({
    DAR_OPENAI_BASE_URL: `${rig.fake.url}/v1`,
    DAR_OPENAI_API_KEY: key,
    DAR_OPENAI_API_KEY_FILE: undefined,
  });
});

test('a streamed text answer, with token usage, over POST /v1/chat/completions', async () => {
  rig.fake.reply(
    sseReply(chatStream({ finishReason: 'stop', text: ['Hi', ' there'], promptTokens: 42 })),
  );
  const { job } = await rig.startJob(MODEL, 'say hi');
  const result = await resultOf(job);

  expect(assistantMessages(result.messages)).toEqual([
    expect.objectContaining({
      content: [{ type: 'text', text: 'Hi there' }],
      stopReason: 'stop',
      api: 'openai-completions',
      provider: 'openai-compatible',
      model: 'some-model',
      usage: expect.objectContaining({ input: 42, output: 7, totalTokens: 49 }) as unknown,
    }),
  ]);
  expect(result.status.usage).toMatchObject({ input: 42, output: 7, totalTokens: 49 });

  expect(rig.fake.requests).toHaveLength(1);
  const request = rig.fake.requests[0];
  expect(request).toMatchObject({ method: 'POST', path: '/v1/chat/completions' });
  expect(request?.headers.authorization).toBe(`Bearer ${key}`);
  const body = request?.body as Record<string, unknown>;
  expect(body).toMatchObject({
    model: 'some-model',
    stream: true,
    stream_options: { include_usage: true },
    messages: [
      { role: 'system', content: expect.any(String) as unknown },
      { role: 'user', content: 'say hi' },
    ],
  });
  // The plain subset every compatible server accepts.
  expect(body).not.toHaveProperty('store');
});

test('tool calls streamed as tool_calls deltas run, and the next request carries their results', async () => {
  rig.fake.reply(
    sseReply(
      chatStream({
        finishReason: 'tool_calls',
        toolCalls: [
          { id: 'call_w', name: 'write', argumentChunks: ['{"path":"a.txt",', '"content":"A"}'] },
          { id: 'call_l', name: 'ls', argumentChunks: ['{}'] },
        ],
      }),
    ),
    sseReply(chatStream({ finishReason: 'stop', text: ['All done.'] })),
  );
  const { job, folder } = await rig.startJob(MODEL);
  const result = await resultOf(job);

  expect(readFileSync(join(folder, 'a.txt'), 'utf8')).toBe('A');
  const [first, second] = assistantMessages(result.messages);
  expect(first).toMatchObject({
    stopReason: 'toolUse',
    content: [
      { type: 'toolCall', id: 'call_w', name: 'write', arguments: { path: 'a.txt', content: 'A' } },
      { type: 'toolCall', id: 'call_l', name: 'ls', arguments: {} },
    ],
  });
  expect(second?.stopReason).toBe('stop');
  expect(toolResults(result.messages).map((message) => message.isError)).toEqual([false, false]);

  expect(rig.fake.requests).toHaveLength(2);
  const messages = (rig.fake.requests[1]?.body as { messages: Array<Record<string, unknown>> })
    .messages;
  expect(messages.slice(2)).toEqual([
    expect.objectContaining({
      role: 'assistant',
      tool_calls: [
        expect.objectContaining({ id: 'call_w', function: expect.anything() as unknown }),
        expect.objectContaining({ id: 'call_l', function: expect.anything() as unknown }),
      ],
    }),
    expect.objectContaining({ role: 'tool', tool_call_id: 'call_w' }),
    // The two calls ran in parallel: what ls saw depends on timing.
    expect.objectContaining({
      role: 'tool',
      tool_call_id: 'call_l',
      content: expect.any(String) as unknown,
    }),
  ]);
});

test('R4: tool calls a server sends without ids each run once as their own call', async () => {
  const edit = (from: string, to: string) => ({
    name: 'edit',
    argumentChunks: [JSON.stringify({ path: 'f.txt', oldText: from, newText: to })],
  });
  rig.fake.reply(
    sseReply(
      chatStream({
        finishReason: 'tool_calls',
        toolCalls: [
          {
            id: 'w',
            name: 'write',
            argumentChunks: ['{"path":"f.txt","content":"alpha\\nbeta\\n"}'],
          },
        ],
      }),
    ),
    sseReply(
      chatStream({
        finishReason: 'tool_calls',
        toolCalls: [edit('alpha', 'ALPHA'), edit('beta', 'BETA')],
      }),
    ),
    sseReply(chatStream({ finishReason: 'stop', text: ['Edited.'] })),
  );
  const { job, folder } = await rig.startJob(MODEL, 'do the task', {
    toolExecution: 'sequential',
  });
  const result = await resultOf(job);

  // Before, both calls had the id "": they shared one tool journal entry, so the second edit
  // was answered "Applied 1 edit" with the first one's result and never made.
  expect(readFileSync(join(folder, 'f.txt'), 'utf8')).toBe('ALPHA\nBETA\n');
  const results = toolResults(result.messages);
  expect(results.map((message) => message.isError)).toEqual([false, false, false]);
  const ids = assistantMessages(result.messages).flatMap((message) =>
    message.content.flatMap((block) => (block.type === 'toolCall' ? [block.id] : [])),
  );
  expect(new Set(ids).size).toBe(3);
  expect(ids.every((id) => id !== '')).toBe(true);
  // Each result answers the call of its own id, in the transcript the model is sent next.
  expect(results.map((message) => message.toolCallId)).toEqual(ids);
  const lastRequest = rig.fake.requests[2]?.body as { messages: Array<Record<string, unknown>> };
  const answered = lastRequest.messages.filter((message) => message.role === 'tool');
  expect(answered.map((message) => message.tool_call_id)).toEqual(ids);
});

test('R3: finish_reason "length" inside tool-call arguments: the call fails unrun, the loop goes on', async () => {
  rig.fake.reply(
    sseReply(
      chatStream({
        finishReason: 'length',
        toolCalls: [
          { id: 'call_cut', name: 'write', argumentChunks: ['{"path":"cut.txt","content":"par'] },
        ],
      }),
    ),
    sseReply(chatStream({ finishReason: 'stop', text: ['Sorry.'] })),
  );
  const { job, folder } = await rig.startJob(MODEL);
  const result = await resultOf(job);

  expect(assistantMessages(result.messages).map((message) => message.stopReason)).toEqual([
    'length',
    'stop',
  ]);
  expect(existsSync(join(folder, 'cut.txt'))).toBe(false);
  const [failed] = toolResults(result.messages);
  expect(failed).toMatchObject({ toolCallId: 'call_cut', isError: true });
  expect(textOfResult(failed)).toContain('output token limit');
  expect(rig.fake.requests).toHaveLength(2);
});

test('R2: a stream that does not end is stopped past the streamed-answer limit: the run ends as an error, the request is not sent again', async () => {
  let written = 0;
  // A server stuck in a loop: content deltas until the client hangs up (or 64 MiB, to end).
  rig.fake.reply(async (response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const [first] = chatStream({ finishReason: 'stop' });
    response.write(`data: ${first?.data}\n\n`);
    const piece = 'loop '.repeat(13_107);
    const data = JSON.stringify({
      id: 'chatcmpl-loop',
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model: 'fake-model',
      choices: [{ index: 0, delta: { content: piece }, finish_reason: null }],
    });
    while (!response.destroyed && written < 64 * 1024 * 1024) {
      response.write(`data: ${data}\n\n`);
      written += piece.length;
      await new Promise((resolve) => setImmediate(resolve));
    }
    response.end();
  });
  const { job } = await rig.startJob(MODEL, 'say everything');
  const result = await resultOf(job);

  expect(result.status.stopReason).toBe('error');
  expect(result.status.errorMessage).toMatch(
    new RegExp(
      `^The model streamed more than ${MAXIMUM_STREAMED_ANSWER_LENGTH} characters for one answer`,
    ),
  );
  // The client hung up soon after the limit, and did not ask again.
  expect(rig.fake.requests).toHaveLength(1);
  expect(rig.fake.requests[0]?.closedEarly).toBe(true);
  expect(written).toBeLessThan(4 * MAXIMUM_STREAMED_ANSWER_LENGTH);
});

test('R3: a stream that ends cleanly before finish_reason and [DONE] is a cut answer: its tool call never runs, the request is sent again', async () => {
  // A proxy's timeout: the role chunk, a tool call's start and part of its arguments, then the
  // connection ends as if the answer were whole.
  const cut = chatStream({
    finishReason: 'tool_calls',
    toolCalls: [
      { id: 'call_cut', name: 'bash', argumentChunks: ['{"command": "echo SAFE > trunc'] },
    ],
  }).slice(0, 3);
  rig.fake.reply(
    sseReply(cut),
    sseReply(chatStream({ finishReason: 'stop', text: ['Nothing to run.'] })),
  );
  const { job, folder } = await rig.startJob(MODEL);
  const result = await resultOf(job);

  expect(existsSync(join(folder, 'trunc'))).toBe(false);
  expect(toolResults(result.messages)).toEqual([]);
  expect(assistantMessages(result.messages).map((message) => message.stopReason)).toEqual(['stop']);
  expect(result.status.stopReason).toBe('stop');
  expect(rig.fake.requests).toHaveLength(2);
  expect(await historyText(job.handle)).toContain(
    "the provider's stream ended before the answer did",
  );
});

test('a server error sent inside a 200 stream is retried: the next attempt answers, nothing of the first is kept', async () => {
  const [role, first] = chatStream({ finishReason: 'stop', text: ['Par'] });
  rig.fake.reply(
    sseReply([
      role!,
      first!,
      {
        data: JSON.stringify({
          error: {
            message: 'The server had an error while processing your request',
            type: 'server_error',
            code: 500,
          },
        }),
      },
    ]),
    sseReply(chatStream({ finishReason: 'stop', text: ['Whole answer.'] })),
  );
  const { job } = await rig.startJob(MODEL);
  const result = await resultOf(job);

  expect(result.status.stopReason).toBe('stop');
  expect(assistantMessages(result.messages).map((message) => message.content)).toEqual([
    [{ type: 'text', text: 'Whole answer.' }],
  ]);
  expect(rig.fake.requests).toHaveLength(2);
});

test('200 with a web page or a plain JSON body instead of a stream ends the run at once, naming the content type and the setting', async () => {
  for (const [contentType, body] of [
    ['text/html; charset=utf-8', '<html><body>Welcome to the web UI</body></html>'],
    [
      'application/json',
      JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        choices: [
          { index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' },
        ],
      }),
    ],
  ] as const) {
    rig.fake.reset();
    rig.fake.reply((response) => {
      response.writeHead(200, { 'content-type': contentType });
      response.end(body);
    });
    const { job } = await rig.startJob(MODEL);
    const result = await resultOf(job);

    expect(result.status.stopReason).toBe('error');
    expect(result.status.errorMessage).toBe(
      `openai-compatible model some-model: the server answered HTTP 200 with ${contentType}, ` +
        "not an event stream: check that DAR_OPENAI_BASE_URL names the API's base URL " +
        '(for a local server, its /v1)',
    );
    // A setting to fix, not a passing failure: asked once.
    expect(rig.fake.requests).toHaveLength(1);
  }
});

test('R2: a stream line that never ends is stopped past its limit: the run ends as an error, the request is not sent again', async () => {
  let written = 0;
  // One event whose text keeps coming, with no line break: the SDK would buffer it for ever.
  rig.fake.reply(async (response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write('data: {"id":"chatcmpl-line","choices":[{"index":0,"delta":{"content":"');
    const piece = 'x'.repeat(1024 * 1024);
    while (!response.destroyed && written < 256 * 1024 * 1024) {
      written += piece.length;
      // At the pace the client reads: `written` is then about what it took before hanging up.
      if (!response.write(piece)) {
        await Promise.race([once(response, 'drain'), once(response, 'close')]);
      }
    }
    response.end();
  });
  const { job } = await rig.startJob(MODEL, 'say everything');
  const result = await resultOf(job);

  expect(result.status.stopReason).toBe('error');
  expect(result.status.errorMessage).toBe(
    `openai-compatible model some-model: a line of the provider's stream passed ` +
      `${MAXIMUM_STREAM_LINE_BYTES} bytes: stopped, over the limit`,
  );
  expect(rig.fake.requests).toHaveLength(1);
  expect(written).toBeLessThan(4 * MAXIMUM_STREAM_LINE_BYTES);
});

test('503 with Retry-After: 2 waits the two seconds asked for (not the 1 s policy backoff)', async () => {
  rig.fake.reply(
    jsonReply(
      503,
      { error: { message: 'model is loading', type: 'server_error' } },
      {
        'retry-after': '2',
      },
    ),
    sseReply(chatStream({ finishReason: 'stop', text: ['Loaded.'] })),
  );
  const { job } = await rig.startJob(MODEL);
  const result = await resultOf(job);

  expect(result.status.stopReason).toBe('stop');
  expect(rig.fake.requests).toHaveLength(2);
  const waited = (rig.fake.requests[1]?.at ?? 0) - (rig.fake.requests[0]?.at ?? 0);
  expect(waited).toBeGreaterThanOrEqual(1900);
  expect(waited).toBeLessThan(6000);
});

test("404 (unknown model on the server) ends the run at once with the server's message", async () => {
  rig.fake.reply(
    jsonReply(404, { error: { message: 'model "some-model" not found, try pulling it first' } }),
  );
  const { job } = await rig.startJob(MODEL);
  const result = await resultOf(job);

  expect(rig.fake.requests).toHaveLength(1);
  expect(result.status.stopReason).toBe('error');
  expect(result.status.errorMessage).toContain('404');
  expect(result.status.errorMessage).toContain('model "some-model" not found');
});

test('without DAR_OPENAI_API_KEY no key is sent, and never the OpenAI key', async () => {
  rig.setEnv({ DAR_OPENAI_API_KEY: undefined });
  rig.fake.reply(sseReply(chatStream({ finishReason: 'stop', text: ['ok'] })));
  const { job } = await rig.startJob(MODEL);
  await resultOf(job);
  expect(rig.fake.requests[0]?.headers.authorization).toBe('Bearer no-key');
  expect(JSON.stringify(rig.fake.requests[0]?.headers)).not.toContain(openAiKey);
});

test('without DAR_OPENAI_BASE_URL the run ends at once with an error naming it', async () => {
  rig.setEnv({ DAR_OPENAI_BASE_URL: undefined });
  const { job } = await rig.startJob(MODEL);
  const result = await resultOf(job);
  expect(rig.fake.requests).toHaveLength(0);
  expect(result.status.stopReason).toBe('error');
  expect(result.status.errorMessage).toContain('DAR_OPENAI_BASE_URL');
});

test('R25: the key goes out in the Authorization header and nowhere into history or the job store', async () => {
  const secret = randomKey();
  rig.setEnv({ DAR_OPENAI_API_KEY: secret });
  rig.fake.reply(
    sseReply(
      chatStream({
        finishReason: 'tool_calls',
        toolCalls: [{ id: 'call_1', name: 'ls', argumentChunks: ['{}'] }],
      }),
    ),
    sseReply(chatStream({ finishReason: 'stop', text: ['Listed.'] })),
  );
  const { job } = await rig.startJob(MODEL);
  await resultOf(job);

  expect(rig.fake.requests.map((request) => request.headers.authorization)).toEqual([
    `Bearer ${secret}`,
    `Bearer ${secret}`,
  ]);
  // The answer's text lives in the job store, not in history; the key in neither.
  const history = await historyText(job.handle);
  expect(history).toContain('call_1');
  expect(history).not.toContain(secret);
  const stored = rig.storeText();
  expect(stored).toContain('Listed.');
  expect(stored).not.toContain(secret);
});
