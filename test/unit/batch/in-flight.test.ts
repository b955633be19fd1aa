import { concurrencyLimit } from '../../../src/batch/closed-job-reads.js';
import { InFlight } from '../../../src/batch/in-flight.js';

/** A promise and its settlers. */
function deferred() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('InFlight', () => {
  test('a re-run of 20,000 finished tasks: the loop waits 20,000 times without piling up reactions', async () => {
    const inFlight = new InFlight();
    const works = Array.from({ length: 20_000 }, () => deferred());
    for (const work of works) void inFlight.add(work.promise);
    const heapBefore = process.memoryUsage().heapUsed;
    let waits = 0;
    for (const work of works) {
      const next = inFlight.next();
      work.resolve();
      await next;
      waits += 1;
    }
    expect(waits).toBe(20_000);
    expect(inFlight.size).toBe(0);
    // Racing all pending works after each settle held 200 million reactions here (gigabytes).
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(200 * 1024 * 1024);
  });

  test('a work that fails rejects the wait with its error, and every later wait', async () => {
    const inFlight = new InFlight();
    const ok = deferred();
    const bad = deferred();
    void inFlight.add(ok.promise);
    inFlight.add(bad.promise).catch(() => undefined);
    const next = inFlight.next();
    bad.reject(new Error('outcome unreadable'));
    await expect(next).rejects.toThrow('outcome unreadable');
    await expect(inFlight.next()).rejects.toThrow('outcome unreadable');
    expect(inFlight.size).toBe(1);
  });

  test('changed() wakes the waiter (an interruption); a change before the wait is not remembered', async () => {
    const inFlight = new InFlight();
    void inFlight.add(deferred().promise);
    inFlight.changed();
    let woken = false;
    const next = inFlight.next().then(() => (woken = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(woken).toBe(false);
    inFlight.changed();
    await next;
    expect(woken).toBe(true);
  });
});

test('concurrencyLimit runs at most that many at once, in the order given', async () => {
  const limit = concurrencyLimit(3);
  let running = 0;
  let most = 0;
  const started: number[] = [];
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, index) =>
      limit(async () => {
        started.push(index);
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running -= 1;
        return index * 2;
      }),
    ),
  );
  expect(most).toBe(3);
  expect(started).toEqual(Array.from({ length: 20 }, (_, index) => index));
  expect(results).toEqual(Array.from({ length: 20 }, (_, index) => index * 2));
});
