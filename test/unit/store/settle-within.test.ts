import { settleWithin } from '../../../src/store/postgres/store-sockets.js';

/** The bound on a PostgreSQL store's close (end to end: `postgres-stalled-close.test.ts`). */

test('a close that ends in time is not forced', async () => {
  let forced = false;
  await settleWithin(Promise.resolve(), 1_000, () => (forced = true));
  await settleWithin(Promise.reject(new Error('already closed')), 1_000, () => (forced = true));
  expect(forced).toBe(false);
});

test('past the limit the close is forced, and then awaited: a failure of it is no error', async () => {
  let reject!: (error: Error) => void;
  const closing = new Promise<void>((_resolve, rejectClosing) => (reject = rejectClosing));
  let forcedAfterMs: number | undefined;
  const started = Date.now();
  await settleWithin(closing, 200, () => {
    forcedAfterMs = Date.now() - started;
    reject(new Error('socket destroyed'));
  });
  expect(forcedAfterMs).toBeGreaterThanOrEqual(190);
});
