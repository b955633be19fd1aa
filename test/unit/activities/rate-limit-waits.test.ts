import {
  FIRST_RATE_LIMIT_WAIT_MS,
  LONGEST_GROWN_RATE_LIMIT_WAIT_MS,
  rateLimitWaitMs,
} from '../../../src/activities/rate-limit-waits.js';

/** The wait between a model call's requests that its provider refused with a Retry-After. */

const noSpread = () => 0;
const mostSpread = () => 0.999;

test('never sooner than the provider asked', () => {
  for (const refusals of [0, 1, 5, 20]) {
    expect(rateLimitWaitMs(45_000, refusals, noSpread)).toBe(45_000);
  }
  // A Retry-After past the cap is honoured as it is.
  expect(rateLimitWaitMs(120_000, 9, noSpread)).toBe(120_000);
});

test('a short Retry-After: the wait doubles with each refusal in a row, up to the cap', () => {
  const waits = [0, 1, 2, 3, 4, 5, 6, 10].map((refusals) =>
    rateLimitWaitMs(100, refusals, noSpread),
  );
  expect(waits).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
  expect(waits[0]).toBe(FIRST_RATE_LIMIT_WAIT_MS);
  expect(waits.at(-1)).toBe(LONGEST_GROWN_RATE_LIMIT_WAIT_MS);
});

test('spread at random over up to half as long again', () => {
  expect(rateLimitWaitMs(1000, 0, mostSpread)).toBe(1499);
  expect(rateLimitWaitMs(1000, 0, () => 0.5)).toBe(1250);
  // Calls refused together come back at different moments.
  const waits = new Set(Array.from({ length: 50 }, () => rateLimitWaitMs(1000, 0)));
  expect(waits.size).toBeGreaterThan(10);
  for (const wait of waits) {
    expect(wait).toBeGreaterThanOrEqual(1000);
    expect(wait).toBeLessThan(1500);
  }
});
