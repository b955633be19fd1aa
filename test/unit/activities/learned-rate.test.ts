import { jest } from '@jest/globals';
import {
  LEARNED_RATE_FORGOTTEN_AFTER_MS,
  LEARNED_RATE_KEPT_AFTER_REFUSAL,
  LOWEST_LEARNED_RATE_PER_SECOND,
  LearnedRate,
  type RequestTurn,
} from '../../../src/activities/learned-rate.js';

/** A provider's rate as this worker learns it from the provider's answers, on Jest's clock. */

beforeEach(() => jest.useFakeTimers({ now: 10_000 }));
afterEach(() => jest.useRealTimers());

const signal = new AbortController().signal;

/**
 * `sent` requests at once, of which the provider refuses all but `accepted` a few ms later;
 * then the second of the pause its refusals asked for.
 */
async function burst(rate: LearnedRate, sent: number, accepted: number): Promise<void> {
  for (let index = 0; index < sent; index += 1) await rate.turn(60_000, signal);
  jest.advanceTimersByTime(5);
  for (let index = accepted; index < sent; index += 1) {
    rate.refused();
    jest.advanceTimersByTime(1);
  }
  jest.advanceTimersByTime(1000);
}

/** When each of `calls` calls asking for a turn now gets it, in ms from now. */
async function turnTimes(rate: LearnedRate, calls: number, maxWaitMs = 60_000) {
  const start = Date.now();
  const times: number[] = [];
  const turns = Array.from({ length: calls }, () =>
    rate.turn(maxWaitMs, signal).then((turn: RequestTurn) => {
      if (turn.granted) times.push(Date.now() - start);
      return turn;
    }),
  );
  await jest.advanceTimersByTimeAsync(60_000);
  return { times, turns: await Promise.all(turns) };
}

test('until a refusal, every request goes at once', async () => {
  const rate = new LearnedRate();
  for (let index = 0; index < 50; index += 1) {
    expect(await rate.turn(1000, signal)).toEqual({ granted: true, waitMs: 0 });
    rate.answered();
  }
  expect(rate.current()).toBeUndefined();
  expect(rate.takeChange()).toBeUndefined();
});

test('the first rate is what the provider let through of the second before its first refusal', async () => {
  const rate = new LearnedRate();
  // Sent long before: not counted.
  await rate.turn(0, signal);
  jest.advanceTimersByTime(5000);
  await burst(rate, 20, 8);
  // The accepted answers are still streaming; the pause is over: calls ask for their turns.
  const { times } = await turnTimes(rate, 4);
  expect(times).toEqual([0, 125, 250, 375]);
  expect(rate.current()).toBe(8);
  expect(rate.takeChange()).toBe(8);
  expect(rate.takeChange()).toBeUndefined();
});

test('a call whose turn would come later than it may wait does not join the line', async () => {
  const rate = new LearnedRate();
  await burst(rate, 3, 0);
  const waiting = [rate.turn(5000, signal), rate.turn(5000, signal)];
  expect(rate.current()).toBe(LOWEST_LEARNED_RATE_PER_SECOND);
  expect(await rate.turn(1500, signal)).toEqual({ granted: false, waitMs: 2000 });
  // It took no place: the next call that may wait is served third.
  const third = rate.turn(5000, signal);
  await jest.advanceTimersByTimeAsync(2000);
  expect(await Promise.all([...waiting, third])).toEqual([
    { granted: true, waitMs: 0 },
    { granted: true, waitMs: 1000 },
    { granted: true, waitMs: 2000 },
  ]);
});

/**
 * Four calls in line at 10 a second (a burst of 30 with 10 accepted); `times` fills with when
 * each got its turn, in ms from now, as the test moves the clock.
 */
async function lineOfFour(): Promise<{
  rate: LearnedRate;
  times: number[];
  line: Promise<unknown>;
}> {
  const rate = new LearnedRate();
  await burst(rate, 30, 10);
  const start = Date.now();
  const times: number[] = [];
  const line = Promise.all(
    Array.from({ length: 4 }, () =>
      rate.turn(60_000, signal).then(() => times.push(Date.now() - start)),
    ),
  );
  return { rate, times, line };
}

test('a lowered rate slows the calls already in line', async () => {
  const { rate, times, line } = await lineOfFour();
  await jest.advanceTimersByTimeAsync(150);
  expect(times).toEqual([0, 100]);
  // A refusal while two have gone: from 10 a second to 7 (the third's timer is already set).
  rate.refused();
  await jest.advanceTimersByTimeAsync(1000);
  await line;
  expect(times[2]).toBe(200);
  expect((times[3] ?? 0) - 200).toBeCloseTo(1000 / 7, -1);
});

test('a pause the provider asks for holds the line; it goes on one at a time after it', async () => {
  const { rate, times, line } = await lineOfFour();
  await jest.advanceTimersByTimeAsync(50);
  // Refused at 50 ms with a wait of 1 s (the second of the line had its timer set for 100 ms).
  rate.holdUntil(Date.now() + 1000);
  rate.refused();
  await jest.advanceTimersByTimeAsync(3000);
  await line;
  expect(times[0]).toBe(0);
  expect(times[1]).toBe(1050);
  // From 10 a second to 7 at the refusal.
  expect((times[2] ?? 0) - 1050).toBeCloseTo(1000 / 7, -1);
  expect((times[3] ?? 0) - (times[2] ?? 0)).toBeCloseTo(1000 / 7, -1);
});

test('a cancelled call leaves the line at once, and the others keep their turns', async () => {
  const rate = new LearnedRate();
  await burst(rate, 3, 0);
  const controller = new AbortController();
  const first = rate.turn(60_000, signal);
  const cancelled = rate.turn(60_000, controller.signal);
  const third = rate.turn(60_000, signal);
  controller.abort(new Error('cancelled'));
  await expect(cancelled).rejects.toThrow('cancelled');
  await jest.advanceTimersByTimeAsync(2000);
  expect(await first).toEqual({ granted: true, waitMs: 0 });
  expect(await third).toEqual({ granted: true, waitMs: 1000 });
});

test('a burst of refusals lowers the rate once; a refusal a second later lowers it again', async () => {
  const rate = new LearnedRate();
  await burst(rate, 30, 10);
  expect(rate.current()).toBe(10);
  rate.takeChange();
  for (let index = 0; index < 20; index += 1) rate.refused();
  expect(rate.current()).toBeCloseTo(10 * LEARNED_RATE_KEPT_AFTER_REFUSAL);
  expect(rate.takeChange()).toBeCloseTo(10 * LEARNED_RATE_KEPT_AFTER_REFUSAL);
  jest.advanceTimersByTime(999);
  rate.refused();
  expect(rate.takeChange()).toBeUndefined();
  jest.advanceTimersByTime(1);
  rate.refused();
  expect(rate.current()).toBeCloseTo(10 * LEARNED_RATE_KEPT_AFTER_REFUSAL ** 2);
  for (let index = 0; index < 20; index += 1) {
    jest.advanceTimersByTime(1000);
    rate.refused();
  }
  expect(rate.current()).toBe(LOWEST_LEARNED_RATE_PER_SECOND);
});

test('accepted requests raise the rate by about 5% a second while calls go at it', async () => {
  const rate = new LearnedRate();
  await burst(rate, 12, 4);
  expect(rate.current()).toBe(4);
  // Twenty seconds at the learned rate, every request accepted.
  for (let second = 0; second < 20; second += 1) {
    const perSecond = Math.round(rate.current() ?? 0);
    for (let index = 0; index < perSecond; index += 1) rate.answered();
    jest.advanceTimersByTime(1000);
  }
  expect(rate.current()).toBeGreaterThan(4 * 1.04 ** 20);
  expect(rate.current()).toBeLessThan(4 * 1.07 ** 20);
});

test('a provider that refused nothing for a while is no longer paced', async () => {
  const rate = new LearnedRate();
  await burst(rate, 3, 1);
  expect(rate.current()).toBe(LOWEST_LEARNED_RATE_PER_SECOND);
  jest.advanceTimersByTime(LEARNED_RATE_FORGOTTEN_AFTER_MS - 1010);
  expect(rate.current()).toBe(LOWEST_LEARNED_RATE_PER_SECOND);
  jest.advanceTimersByTime(20);
  expect(rate.current()).toBeUndefined();
  expect(await rate.turn(0, signal)).toEqual({ granted: true, waitMs: 0 });
  // Learning starts again from the next refusal (the request sent just before counts too).
  await burst(rate, 5, 3);
  expect(rate.current()).toBe(4);
});
