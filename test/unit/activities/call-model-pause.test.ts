import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { callModel } from '../../../src/activities/call-model.js';
import { createProviderPauses } from '../../../src/activities/provider-pauses.js';
import type { AssistantMessage } from '../../../src/core/index.js';

/** The model activity honours its provider's pause (set by another call's Retry-After). */

function scriptedModel(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'dar-pause-')), 'script.json');
  writeFileSync(
    path,
    JSON.stringify([{ stopReason: 'stop', content: [{ type: 'text', text: 'ok' }] }]),
  );
  return `scripted:${path}`;
}

const request = { systemPrompt: 'x', messages: [], tools: [] };

test('a short pause is waited out, then the provider is called', async () => {
  const pauses = createProviderPauses();
  pauses.pause('scripted', 400);
  const started = Date.now();
  const answer: AssistantMessage = await new MockActivityEnvironment().run(
    callModel,
    { model: scriptedModel(), request },
    pauses,
  );
  expect(Date.now() - started).toBeGreaterThanOrEqual(390);
  expect(answer.content).toEqual([{ type: 'text', text: 'ok' }]);
});

test('a pause longer than a minute fails the call at once, retryable after the rest of it', async () => {
  const pauses = createProviderPauses();
  pauses.pause('scripted', 120_000);
  const started = Date.now();
  const failure = await new MockActivityEnvironment()
    .run(callModel, { model: scriptedModel(), request }, pauses)
    .catch((error: unknown) => error);
  expect(Date.now() - started).toBeLessThan(5000);
  expect(failure).toBeInstanceOf(ApplicationFailure);
  const applicationFailure = failure as ApplicationFailure;
  expect(applicationFailure.type).toBe('ModelTransientError');
  expect(applicationFailure.nonRetryable).toBe(false);
  expect(Number(applicationFailure.nextRetryDelay)).toBeGreaterThan(110_000);
  expect(applicationFailure.message).toMatch(
    /scripted asked to wait \(Retry-After\): 1[12]\d s left/,
  );
});

test('a failure that asks for no wait does not pause the provider', async () => {
  const pauses = createProviderPauses();
  const path = join(mkdtempSync(join(tmpdir(), 'dar-pause-')), 'empty.json');
  writeFileSync(path, '[]');
  // An empty script fails without a retry delay. (A 429 with Retry-After pausing the others is
  // shown over HTTP in test/integration/providers/rate-pacing.test.ts.)
  await new MockActivityEnvironment()
    .run(callModel, { model: `scripted:${path}`, request }, pauses)
    .catch(() => undefined);
  expect(pauses.remaining('scripted')).toBe(0);
});
