import { ApplicationFailure } from '@temporalio/common';
import { piAiProvider, MODEL_TRANSIENT_ERROR } from '../../../src/providers/pi-ai-provider.js';
import { realProviderSpec } from '../../../src/providers/real-providers.js';
import { findFreePort } from '../../../src/server/ports.js';

/**
 * A model server that does not answer (nothing listens on its port): the retryable failure the
 * job shows names the base URL the call went to, which is what the user has to fix.
 */

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

test('a call nobody answers fails as transient and names the base URL it tried', async () => {
  const port = await findFreePort('127.0.0.1');
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  process.env.DAR_OPENAI_BASE_URL = baseUrl;
  const spec = realProviderSpec('openai-compatible');
  if (!spec) throw new Error('openai-compatible is not a provider');
  const call = piAiProvider(spec, 'local-model').call(
    { systemPrompt: '', messages: [{ role: 'user', content: 'hi', timestamp: 0 }], tools: [] },
    { signal: new AbortController().signal, heartbeat: () => undefined },
  );

  const failure = await call.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(failure).toBeInstanceOf(ApplicationFailure);
  expect(failure).toMatchObject({ type: MODEL_TRANSIENT_ERROR, nonRetryable: false });
  expect((failure as ApplicationFailure).message).toBe(
    `openai-compatible model local-model: Connection error. (${baseUrl})`,
  );
});
