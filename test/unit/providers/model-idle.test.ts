import { jest } from '@jest/globals';
import { describeDuration } from '../../../src/job-input/duration.js';
import {
  DEFAULT_MODEL_IDLE_TIMEOUT_MS,
  modelIdleTimeoutFrom,
  watchIdle,
} from '../../../src/providers/model-idle.js';

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

describe('DAR_MODEL_IDLE_TIMEOUT', () => {
  test('unset or blank: five minutes; a duration: that many milliseconds; off: no limit', () => {
    expect(modelIdleTimeoutFrom({})).toBe(DEFAULT_MODEL_IDLE_TIMEOUT_MS);
    expect(DEFAULT_MODEL_IDLE_TIMEOUT_MS).toBe(300_000);
    expect(modelIdleTimeoutFrom({ DAR_MODEL_IDLE_TIMEOUT: '  ' })).toBe(300_000);
    expect(modelIdleTimeoutFrom({ DAR_MODEL_IDLE_TIMEOUT: '90s' })).toBe(90_000);
    expect(modelIdleTimeoutFrom({ DAR_MODEL_IDLE_TIMEOUT: '2m' })).toBe(120_000);
    expect(modelIdleTimeoutFrom({ DAR_MODEL_IDLE_TIMEOUT: 'OFF' })).toBeUndefined();
  });

  test('anything else is an error naming the variable and the value', () => {
    for (const bad of ['5', 'soon', '-1m', '0s']) {
      expect(() => modelIdleTimeoutFrom({ DAR_MODEL_IDLE_TIMEOUT: bad })).toThrow(
        `DAR_MODEL_IDLE_TIMEOUT must be a duration such as 90s or 5m, or off, not "${bad}"`,
      );
    }
  });

  test('limits are named in the unit a reader expects', () => {
    expect(describeDuration(500)).toBe('500 ms');
    expect(describeDuration(2000)).toBe('2 s');
    expect(describeDuration(90_000)).toBe('90 s');
    expect(describeDuration(300_000)).toBe('5 min');
  });
});

describe('watchIdle', () => {
  test('signs of life closer than the limit keep it from firing; silence past the limit fires it once', async () => {
    let fired = 0;
    const watch = watchIdle(80, () => (fired += 1));
    for (let index = 0; index < 8; index += 1) {
      await sleep(30);
      watch.touch();
    }
    expect(fired).toBe(0);
    expect(watch.fired).toBe(false);
    await sleep(200);
    expect(fired).toBe(1);
    expect(watch.fired).toBe(true);
    watch.stop();
  });

  test('stopped, or without a limit, it never fires', async () => {
    let fired = 0;
    watchIdle(40, () => (fired += 1)).stop();
    const unlimited = watchIdle(undefined, () => (fired += 1));
    await sleep(120);
    expect(fired).toBe(0);
    expect(unlimited.fired).toBe(false);
    unlimited.stop();
  });

  test('a limit longer than a Node timer takes (600h) is waited out, not re-checked every 1 ms', async () => {
    // Node runs a longer timer after 1 ms: the watch then woke up about a thousand times a
    // second for the whole call.
    const timers = jest.spyOn(globalThis, 'setTimeout');
    try {
      const watch = watchIdle(600 * 3_600_000, () => undefined);
      await sleep(100);
      expect(watch.fired).toBe(false);
      watch.stop();
      // The watch's one timer, and the test's own sleep.
      expect(timers.mock.calls.length).toBeLessThanOrEqual(2);
    } finally {
      timers.mockRestore();
    }
  });
});
