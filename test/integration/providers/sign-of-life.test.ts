import type { ServerResponse } from 'node:http';
import { emptyUsage, textOf, type AssistantMessage } from '../../../src/core/index.js';
import type { ModelProvider } from '../../../src/providers/model-provider.js';
import { ProviderRig, assistantMessages, resultOf } from './provider-rig.js';

/**
 * A provider of one's own (`createAgentWorker({ providers })`) that reports what arrives with
 * `context.signOfLife()` and sets `reportsSignsOfLife`: the runner watches its silence as it
 * watches the built-in providers' (`DAR_MODEL_IDLE_TIMEOUT`, here 2 s, read by the in-process
 * worker on each call). Without the watch, a request to a server that stopped sending holds
 * the model call for its 10-minute limit, on every attempt, since the call's heartbeat goes on
 * while the worker lives. Real jobs on a real dev server; the provider reads a real HTTP
 * stream from a server on 127.0.0.1.
 */

const IDLE_LIMIT_MS = 2000;
const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

let rig: ProviderRig;

/**
 * Posts to the fake server and answers with the text of its reply, read chunk by chunk; a sign
 * of life for the headers and for each chunk, when `reports`.
 */
function streamingProvider(reports: boolean) {
  return (modelId: string): ModelProvider => ({
    ...(reports ? { reportsSignsOfLife: true } : {}),
    async call(_request, context): Promise<AssistantMessage> {
      const response = await fetch(`${rig.fake.url}/${modelId}`, {
        method: 'POST',
        body: JSON.stringify({ callIndex: context.callIndex }),
        signal: context.signal,
      });
      context.signOfLife?.();
      const decoder = new TextDecoder();
      let text = '';
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
        context.signOfLife?.();
        text += decoder.decode(chunk, { stream: true });
      }
      return {
        role: 'assistant',
        content: [{ type: 'text', text }],
        api: 'streaming',
        provider: reports ? 'reporting' : 'unreporting',
        model: modelId,
        usage: emptyUsage(),
        stopReason: 'stop',
        timestamp: Date.now(),
      };
    },
  });
}

/** Writes `parts` with `gapMs` between them; with `stallAfter`, stays silent after that many. */
function chunks(parts: string[], gapMs: number, stallAfter?: number) {
  return async (response: ServerResponse) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    for (const [index, part] of parts.entries()) {
      if (index === stallAfter) return;
      if (index > 0) await sleep(gapMs);
      if (response.destroyed) return;
      response.write(part);
    }
    response.end();
  };
}

beforeAll(async () => {
  rig = await ProviderRig.start('sign-of-life', {
    reporting: streamingProvider(true),
    unreporting: streamingProvider(false),
  });
  rig.setEnv({ DAR_MODEL_IDLE_TIMEOUT: `${IDLE_LIMIT_MS}ms` });
}, 180_000);

afterAll(async () => {
  await rig?.stop();
});

beforeEach(() => rig.fake.reset());

async function runJob(model: string): Promise<string> {
  const { job } = await rig.startJob(model);
  const result = await resultOf(job);
  expect(result.status).toMatchObject({ stopReason: 'stop', cancelled: false });
  const last = assistantMessages(result.messages).at(-1);
  return last ? textOf(last) : '';
}

test('a reporting provider whose server goes silent is stopped after the idle limit and sent again; the job completes with the second answer', async () => {
  rig.fake.reply(
    chunks(['the first ', 'never comes'], 0, 1),
    chunks(['the second ', 'answer'], 50),
  );
  const answer = await runJob('reporting:m');
  expect(answer).toBe('the second answer');
  expect(rig.fake.requests).toHaveLength(2);
  const [first, second] = rig.fake.requests;
  expect(first?.closedEarly).toBe(true);
  expect(second!.at - first!.at).toBeGreaterThanOrEqual(IDLE_LIMIT_MS);
}, 60_000);

test('a reporting provider whose server keeps sending, slower than the limit in all but faster between chunks, is one request', async () => {
  const parts = Array.from({ length: 9 }, (_, index) => `${index} `);
  rig.fake.reply(chunks(parts, IDLE_LIMIT_MS / 4));
  const answer = await runJob('reporting:m');
  expect(answer).toBe(parts.join(''));
  expect(rig.fake.requests).toHaveLength(1);
}, 60_000);

test('a provider that does not report is not watched: a silence past the limit is waited out', async () => {
  rig.fake.reply(chunks(['said ', 'slowly'], IDLE_LIMIT_MS * 2));
  const answer = await runJob('unreporting:m');
  expect(answer).toBe('said slowly');
  expect(rig.fake.requests).toHaveLength(1);
}, 60_000);
