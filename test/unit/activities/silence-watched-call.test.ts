import { ApplicationFailure } from '@temporalio/common';
import { emptyUsage, type AssistantMessage, type ModelRequest } from '../../../src/core/index.js';
import { callWatchingSilence } from '../../../src/activities/silence-watched-call.js';
import type { ModelCallContext, ModelProvider } from '../../../src/providers/model-provider.js';

/**
 * The runner's watch of a provider of one's own that reports signs of life
 * (`ModelProvider.reportsSignsOfLife`): the request is stopped once nothing came for the limit,
 * and the attempt fails as a retryable `ModelTransientError`. The end-to-end case, a real job
 * on a real dev server with a provider reading a real HTTP stream, is in
 * `test/integration/providers/sign-of-life.test.ts`.
 */

const LIMIT_MS = 600;
const REQUEST: ModelRequest = { systemPrompt: '', messages: [], tools: [] };
const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

function answer(text: string, stopReason: AssistantMessage['stopReason'] = 'stop') {
  return {
    role: 'assistant',
    content: [{ type: 'text', text }],
    api: 'test',
    provider: 'test',
    model: 'm',
    usage: emptyUsage(),
    stopReason,
    timestamp: Date.now(),
  } satisfies AssistantMessage;
}

/** Resolves when `signal` aborts, rejecting with its reason (as `fetch` does). */
function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason as Error);
    signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
  });
}

function context(signal = new AbortController().signal): ModelCallContext {
  return { signal, heartbeat: () => undefined };
}

function reporting(call: ModelProvider['call']): ModelProvider {
  return { reportsSignsOfLife: true, call };
}

async function failureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  const error: unknown = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ApplicationFailure);
  return error as ApplicationFailure;
}

test('a reporting provider silent past the limit: its signal aborts and the attempt fails retryable, naming the silence and the setting', async () => {
  let heardAbort = false;
  const provider = reporting(async (_request, callContext) => {
    callContext.signOfLife?.();
    await untilAborted(callContext.signal).catch((error: unknown) => {
      heardAbort = true;
      throw error;
    });
    return answer('never');
  });
  const started = Date.now();
  const failure = await failureOf(
    callWatchingSilence(provider, 'mine', REQUEST, context(), LIMIT_MS),
  );
  expect(Date.now() - started).toBeGreaterThanOrEqual(LIMIT_MS - 20);
  expect(heardAbort).toBe(true);
  expect(failure.type).toBe('ModelTransientError');
  expect(failure.nonRetryable).toBe(false);
  expect(failure.message).toBe(
    'mine: no sign of life from the provider for 600 ms: the request was stopped, to be sent again (DAR_MODEL_IDLE_TIMEOUT sets this limit)',
  );
});

test('signs of life more often than the limit keep a request going for twice the limit', async () => {
  const provider = reporting(async (_request, callContext) => {
    for (let chunk = 0; chunk < 20; chunk += 1) {
      await sleep(LIMIT_MS / 10);
      callContext.signal.throwIfAborted();
      callContext.signOfLife?.();
    }
    return answer('long and alive');
  });
  const result = await callWatchingSilence(provider, 'mine', REQUEST, context(), LIMIT_MS);
  expect(result.content).toEqual([{ type: 'text', text: 'long and alive' }]);
});

test('streamed events count as signs of life, and still reach the follower', async () => {
  const heard: unknown[] = [];
  const provider = reporting(async (_request, callContext) => {
    for (let chunk = 0; chunk < 20; chunk += 1) {
      await sleep(LIMIT_MS / 10);
      callContext.signal.throwIfAborted();
      callContext.onStreamEvent?.({ type: 'text_delta', delta: String(chunk) });
    }
    return answer('streamed');
  });
  const result = await callWatchingSilence(
    provider,
    'mine',
    REQUEST,
    { ...context(), onStreamEvent: (event) => heard.push(event) },
    LIMIT_MS,
  );
  expect(result.stopReason).toBe('stop');
  expect(heard).toHaveLength(20);
});

test('a provider that ends a stopped request as an aborted answer fails as silent too; an answer that did come is kept', async () => {
  const endsAsAnswer = reporting(async (_request, callContext) => {
    await untilAborted(callContext.signal).catch(() => undefined);
    return answer('', 'aborted');
  });
  const failure = await failureOf(
    callWatchingSilence(endsAsAnswer, 'mine', REQUEST, context(), LIMIT_MS),
  );
  expect(failure.message).toContain('no sign of life');

  const answersAnyway = reporting(async (_request, callContext) => {
    await untilAborted(callContext.signal).catch(() => undefined);
    return answer('it came after all');
  });
  const kept = await callWatchingSilence(answersAnyway, 'mine', REQUEST, context(), LIMIT_MS);
  expect(kept.content).toEqual([{ type: 'text', text: 'it came after all' }]);
});

test("a cancelled job is not a silence: the provider's own abort error goes through", async () => {
  const cancel = new AbortController();
  const provider = reporting(async (_request, callContext) => {
    await untilAborted(callContext.signal);
    return answer('never');
  });
  setTimeout(() => cancel.abort(new Error('job cancelled')), LIMIT_MS / 4);
  await expect(
    callWatchingSilence(provider, 'mine', REQUEST, context(cancel.signal), LIMIT_MS),
  ).rejects.toThrow('job cancelled');
});

test('a provider that does not report, or a limit that is off, is not watched: its silence is waited out', async () => {
  let sawSignOfLife = false;
  const silentFor = (milliseconds: number, reports: boolean): ModelProvider => ({
    reportsSignsOfLife: reports,
    async call(_request, callContext) {
      sawSignOfLife = callContext.signOfLife !== undefined;
      await sleep(milliseconds);
      callContext.signal.throwIfAborted();
      return answer('waited out');
    },
  });
  const unreported = await callWatchingSilence(
    silentFor(LIMIT_MS * 2, false),
    'mine',
    REQUEST,
    context(),
    LIMIT_MS,
  );
  expect(unreported.content).toEqual([{ type: 'text', text: 'waited out' }]);
  expect(sawSignOfLife).toBe(false);
  const limitOff = await callWatchingSilence(
    silentFor(LIMIT_MS * 2, true),
    'mine',
    REQUEST,
    context(),
    undefined,
  );
  expect(limitOff.stopReason).toBe('stop');
});
