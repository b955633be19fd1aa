import { createProviderPauses, noProviderPauses } from '../../../src/activities/provider-pauses.js';

/** The per-process pause a provider's Retry-After puts on every model call to it. */

test('a call waits until the pause of its provider ends; other providers are not held', async () => {
  const pauses = createProviderPauses();
  pauses.pause('openai', 300);
  const signal = new AbortController().signal;
  const started = Date.now();
  await pauses.waitFor('anthropic', signal);
  expect(Date.now() - started).toBeLessThan(100);
  await pauses.waitFor('openai', signal);
  expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  expect(pauses.remaining('openai')).toBe(0);
});

test('the longer pause wins, and a pause that grows while a call waits holds it longer', async () => {
  let now = 1000;
  const clock = createProviderPauses(() => now);
  clock.pause('openai', 500);
  clock.pause('openai', 100);
  expect(clock.remaining('openai')).toBe(500);
  now += 200;
  expect(clock.remaining('openai')).toBe(300);

  const pauses = createProviderPauses();
  pauses.pause('openai', 100);
  const started = Date.now();
  const waiting = pauses.waitFor('openai', new AbortController().signal);
  setTimeout(() => pauses.pause('openai', 300), 50);
  await waiting;
  expect(Date.now() - started).toBeGreaterThanOrEqual(340);
});

test('a cancelled call stops waiting at once', async () => {
  const pauses = createProviderPauses();
  pauses.pause('openai', 60_000);
  const controller = new AbortController();
  const waiting = pauses.waitFor('openai', controller.signal);
  setTimeout(() => controller.abort(new Error('cancelled')), 20);
  await expect(waiting).rejects.toThrow('cancelled');
  await expect(pauses.waitFor('openai', controller.signal)).rejects.toThrow('cancelled');
});

test('noProviderPauses never holds a call', async () => {
  noProviderPauses.pause('openai', 60_000);
  expect(noProviderPauses.remaining('openai')).toBe(0);
  await noProviderPauses.waitFor('openai', new AbortController().signal);
});

test('a refusal paces the provider it came from, not the others', async () => {
  let now = 1000;
  const pauses = createProviderPauses(() => now);
  const signal = new AbortController().signal;
  for (let index = 0; index < 10; index += 1) await pauses.turn('openai', 60_000, signal);
  now += 10;
  for (let index = 0; index < 6; index += 1) pauses.pause('openai', 1000);
  now += 1000;
  expect(await pauses.turn('openai', 10_000, signal)).toEqual({ granted: true, waitMs: 0 });
  // Four a second: the next call would wait a quarter of a second, more than it may.
  expect(await pauses.turn('openai', 100, signal)).toEqual({ granted: false, waitMs: 250 });
  expect(pauses.takeRateChange('openai')).toBe(4);
  expect(await pauses.turn('anthropic', 0, signal)).toEqual({ granted: true, waitMs: 0 });
  expect(await pauses.turn('anthropic', 0, signal)).toEqual({ granted: true, waitMs: 0 });
  expect(pauses.takeRateChange('anthropic')).toBeUndefined();
  noProviderPauses.pause('openai', 1000);
  expect(await noProviderPauses.turn('openai', 0, signal)).toEqual({ granted: true, waitMs: 0 });
  expect(noProviderPauses.takeRateChange('openai')).toBeUndefined();
});
