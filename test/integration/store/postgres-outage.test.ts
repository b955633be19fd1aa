import pg from 'pg';
import {
  PostgresJobStore,
  StoreUnavailableError,
  isRetryableStoreError,
  objectRef,
  type JobStore,
} from '../../../src/store/index.js';
import { startPostgresServer, type PostgresServer } from '../../support/postgres-server.js';

let server: PostgresServer;
const stores: JobStore[] = [];

beforeAll(async () => {
  server = await startPostgresServer();
});

afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()));
  await server?.destroy();
});

const openStore = (url: string): JobStore => {
  const store = new PostgresJobStore({ connectionString: url, connectTimeoutMs: 2_000 });
  stores.push(store);
  return store;
};

async function expectRetryable(operation: Promise<unknown>): Promise<void> {
  const failure = await operation.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(failure).toBeInstanceOf(StoreUnavailableError);
  expect(isRetryableStoreError(failure)).toBe(true);
}

test('database down: every call fails retryable; back up: the same store works again', async () => {
  const store = openStore(await server.createDatabase('outage'));
  const ref = await store.putObject({ before: 'outage' });
  await store.appendEvents('job-1', [{ seq: 1, event: { type: 'agent_start' } }]);
  await store.putRecord('journal', 'call-1', { state: 'started' });

  await server.stop();
  await expectRetryable(store.putObject({ during: 'outage' }));
  await expectRetryable(store.getObject(ref));
  await expectRetryable(store.appendEvents('job-1', [{ seq: 2, event: { type: 'turn_start' } }]));
  await expectRetryable(store.readEvents('job-1'));
  await expectRetryable(store.lastSeq('job-1'));
  await expectRetryable(store.putRecord('journal', 'call-1', { state: 'finished' }));
  await expectRetryable(store.getRecord('journal', 'call-1'));

  await server.start();
  // What an activity does after its retry backoff: the same calls, on the same store object.
  expect(await store.getObject(ref)).toEqual({ before: 'outage' });
  expect(await store.putObject({ during: 'outage' })).toBe(objectRef({ during: 'outage' }));
  await store.appendEvents('job-1', [{ seq: 2, event: { type: 'turn_start' } }]);
  expect(await store.readEvents('job-1')).toEqual([
    { seq: 1, event: { type: 'agent_start' } },
    { seq: 2, event: { type: 'turn_start' } },
  ]);
  await store.putRecord('journal', 'call-1', { state: 'finished' });
  expect(await store.getRecord('journal', 'call-1')).toEqual({ state: 'finished' });
});

test('a store first used while the database is down creates its tables once it is back', async () => {
  const url = await server.createDatabase('outage_fresh');
  const store = openStore(url);
  await server.stop();
  await expectRetryable(store.lastSeq('job-1'));
  await server.start();
  expect(await store.lastSeq('job-1')).toBe(0);
  await store.appendEvents('job-1', [{ seq: 1, event: { ok: true } }]);
  expect(await store.lastSeq('job-1')).toBe(1);
});

test('a follower ends with a retryable error when the database goes away', async () => {
  const store = openStore(await server.createDatabase('outage_follow'));
  await store.appendEvents('job-1', [{ seq: 1, event: { n: 1 } }]);
  const controller = new AbortController();
  const seen: number[] = [];
  const following = (async () => {
    for await (const stored of store.followEvents('job-1', 0, controller.signal)) {
      seen.push(stored.seq);
    }
  })();
  await new Promise((resolve) => setTimeout(resolve, 400));
  await server.stop();
  try {
    await expectRetryable(following);
    expect(seen).toEqual([1]);
  } finally {
    controller.abort();
    await server.start();
  }
});

test('a database that stops answering fails the call as retryable after queryTimeoutMs', async () => {
  const url = await server.createDatabase('outage_silent');
  const store = new PostgresJobStore({ connectionString: url, queryTimeoutMs: 500 });
  stores.push(store);
  await store.putRecord('journal', 'call-1', { state: 'started' });
  // Another session holds the table: the store's statement waits without an answer.
  const holder = new pg.Client({ connectionString: url });
  await holder.connect();
  try {
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE dar_store_records IN ACCESS EXCLUSIVE MODE');
    const started = Date.now();
    await expectRetryable(store.getRecord('journal', 'call-1'));
    expect(Date.now() - started).toBeLessThan(5_000);
  } finally {
    await holder.query('ROLLBACK');
    await holder.end();
  }
  expect(await store.getRecord('journal', 'call-1')).toEqual({ state: 'started' });
});
