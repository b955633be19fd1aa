import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  JobStoreError,
  ObjectNotFound,
  PostgresJobStore,
  type ObjectRef,
} from '../../../src/store/index.js';
import { encodeObject } from '../../../src/store/object-ref.js';
import type { StaleObject, StoreMaintenance } from '../../../src/store/store-maintenance.js';
import { startPostgresServer, type PostgresServer } from '../../support/postgres-server.js';

let server: PostgresServer;
let databaseCount = 0;
let url = '';
let store: PostgresJobStore;
let maintenance: StoreMaintenance;
let client: pg.Client;

const DAY_MS = 24 * 60 * 60 * 1000;
/** Larger than the 16 KB the store sends without looking up first: the large path. */
const LARGE = 'x'.repeat(20_000);

beforeAll(async () => {
  server = await startPostgresServer();
});

afterAll(async () => {
  await server?.destroy();
});

beforeEach(async () => {
  databaseCount += 1;
  url = await server.createDatabase(`maintenance_${databaseCount}`);
  store = new PostgresJobStore({ connectionString: url });
  maintenance = store.maintenance();
  client = new pg.Client({ connectionString: url });
  await client.connect();
});

afterEach(async () => {
  await Promise.all([store.close(), client.end()]);
});

/** Sets an object's touched_at to `age` (an SQL interval) ago. */
async function age(ref: ObjectRef, interval: string): Promise<void> {
  const { rowCount } = await client.query(
    'UPDATE dar_store_objects SET touched_at = now() - $2::interval WHERE ref = $1',
    [ref, interval],
  );
  expect(rowCount).toBe(1);
}

/** The object's touched_at, exactly (microseconds), as text. */
async function touchedAt(ref: ObjectRef): Promise<string> {
  const { rows } = await client.query<{ touched: string }>(
    'SELECT touched_at::text AS touched FROM dar_store_objects WHERE ref = $1',
    [ref],
  );
  return rows[0]?.touched ?? 'missing';
}

/** Seconds since the object's touched_at. */
async function secondsSinceTouch(ref: ObjectRef): Promise<number> {
  const { rows } = await client.query<{ seconds: number }>(
    `SELECT extract(epoch FROM now() - touched_at)::double precision AS seconds
     FROM dar_store_objects WHERE ref = $1`,
    [ref],
  );
  return rows[0]?.seconds ?? Number.NaN;
}

async function collect<Item>(items: AsyncIterable<Item>): Promise<Item[]> {
  const collected: Item[] = [];
  for await (const item of items) collected.push(item);
  return collected;
}

const byRef = (left: StaleObject, right: StaleObject) => (left.ref < right.ref ? -1 : 1);
const sizeOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** Waits until a statement of this database waits for a row lock. */
async function untilWaitingForLock(): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const { rows } = await client.query<{ waiting: number }>(
      `SELECT count(*)::integer AS waiting FROM pg_stat_activity
       WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    if ((rows[0]?.waiting ?? 0) > 0) return;
    await sleep(20);
  }
  throw new Error('No statement waited for the lock');
}

describe('PostgreSQL store maintenance', () => {
  test.each([
    ['a small value (the INSERT)', { note: 'small' }],
    ['a value over 16 KB (the look-up)', { note: 'large', text: LARGE }],
  ])(
    'a re-put refreshes the touch time of %s, only when older than the interval',
    async (_, value) => {
      const ref = await store.putObject(value);
      await age(ref, '2 days');
      await store.putObject(value);
      expect(await secondsSinceTouch(ref)).toBeLessThan(60);

      await age(ref, '1 minute');
      const before = await touchedAt(ref);
      await store.putObjects([value, value]);
      expect(await touchedAt(ref)).toBe(before);
      await expect(store.getObject(ref)).resolves.toEqual(value);
    },
  );

  test('a small aged object in a batch over 16 KB is refreshed too', async () => {
    const small = { note: 'in a large batch' };
    const ref = await store.putObject(small);
    await age(ref, '2 days');
    await store.putObjects([small, { text: LARGE }]);
    expect(await secondsSinceTouch(ref)).toBeLessThan(60);
  });

  test('objects put before the cutoff are listed with their sizes, removed, and can be put again', async () => {
    const values = [{ n: 1 }, { n: 2, text: LARGE }, { n: 3 }];
    const refs = await store.putObjects(values);
    const [first, second, third] = refs as [ObjectRef, ObjectRef, ObjectRef];
    await age(first, '2 days');
    await age(second, '3 days');
    const cutoffMs = Date.now() - DAY_MS;

    const pages = await collect(maintenance.listObjectsPutBefore(cutoffMs));
    const expected = [
      { ref: first, bytes: sizeOf(values[0]) },
      { ref: second, bytes: sizeOf(values[1]) },
    ].sort(byRef);
    expect(pages.flat().sort(byRef)).toEqual(expected);
    expect((await collect(maintenance.listObjectsPutSince(cutoffMs))).flat()).toEqual([
      { ref: third, bytes: sizeOf(values[2]) },
    ]);

    await expect(
      maintenance.removeObjectsPutBefore([first, second, third], cutoffMs),
    ).resolves.toEqual({
      count: 2,
      bytes: sizeOf(values[0]) + sizeOf(values[1]),
    });
    await expect(store.getObject(first)).rejects.toBeInstanceOf(ObjectNotFound);
    await expect(store.getObject(second)).rejects.toBeInstanceOf(ObjectNotFound);
    await expect(store.getObject(third)).resolves.toEqual(values[2]);
    expect(await collect(maintenance.listObjectsPutBefore(cutoffMs))).toEqual([]);

    await store.putObjects([values[0], values[1]]);
    await expect(store.getObjects([first, second])).resolves.toEqual([values[0], values[1]]);
  });

  test('objects are listed a page at a time past 1000 and removed in slices', async () => {
    const values = Array.from({ length: 1005 }, (_, index) => ({ index }));
    const refs = await store.putObjects(values);
    await client.query(`UPDATE dar_store_objects SET touched_at = now() - interval '2 days'`);
    const cutoffMs = Date.now() - DAY_MS;
    const pages = await collect(maintenance.listObjectsPutBefore(cutoffMs));
    expect(pages.map((page) => page.length)).toEqual([1000, 5]);
    expect(new Set(pages.flat().map((object) => object.ref))).toEqual(new Set(refs));
    const removed = await maintenance.removeObjectsPutBefore(refs, cutoffMs);
    expect(removed).toEqual({
      count: 1005,
      bytes: values.reduce((total, value) => total + sizeOf(value), 0),
    });
    const { rows } = await client.query<{ count: number }>(
      'SELECT count(*)::integer AS count FROM dar_store_objects',
    );
    expect(rows[0]?.count).toBe(0);
  });

  test.each([
    ['small', { note: 'listed, then put again' }],
    ['large', { note: 'listed, then put again', text: LARGE }],
  ])('a %s object put again after it was listed is not removed', async (_, value) => {
    const ref = await store.putObject(value);
    await age(ref, '2 days');
    const cutoffMs = Date.now() - DAY_MS;
    const listed = (await collect(maintenance.listObjectsPutBefore(cutoffMs))).flat();
    expect(listed.map((object) => object.ref)).toEqual([ref]);

    await store.putObject(value);
    await expect(maintenance.removeObjectsPutBefore([ref], cutoffMs)).resolves.toEqual({
      count: 0,
      bytes: 0,
    });
    await expect(store.getObject(ref)).resolves.toEqual(value);
  });

  describe('a put while a removal of the object is not yet committed', () => {
    const cases = [
      ['small', 'committed', { note: 'contended' }],
      ['large', 'committed', { note: 'contended', text: LARGE }],
      ['small', 'rolled back', { note: 'contended' }],
      ['large', 'rolled back', { note: 'contended', text: LARGE }],
    ] as const;

    test.each(cases)(
      'a %s put waits, and the object is stored when the removal is %s',
      async (_, end, value) => {
        const ref = await store.putObject(value);
        await age(ref, '2 days');
        const remover = new pg.Client({ connectionString: url });
        await remover.connect();
        try {
          await remover.query('BEGIN');
          const { rowCount } = await remover.query(
            `DELETE FROM dar_store_objects WHERE ref = $1 AND touched_at < now() - interval '1 day'`,
            [ref],
          );
          expect(rowCount).toBe(1);

          let settled = false;
          const putting = store.putObject(value).finally(() => {
            settled = true;
          });
          putting.catch(() => undefined);
          await untilWaitingForLock();
          expect(settled).toBe(false);

          await remover.query(end === 'committed' ? 'COMMIT' : 'ROLLBACK');
          await expect(putting).resolves.toBe(ref);
          await expect(store.getObject(ref)).resolves.toEqual(value);
          expect(await secondsSinceTouch(ref)).toBeLessThan(60);
        } finally {
          await remover.end();
        }
      },
    );
  });

  test('record keys are listed past 1000 with when they were written, and deleted one by one', async () => {
    const keys = Array.from(
      { length: 1005 },
      (_, index) => `key-${String(index).padStart(4, '0')}`,
    );
    for (let start = 0; start < keys.length; start += 50) {
      await Promise.all(
        keys.slice(start, start + 50).map((key) => store.putRecord('journal', key, { key })),
      );
    }
    await store.putRecord('other', 'key-0000', 'another namespace');
    await client.query(
      `UPDATE dar_store_records SET updated_at = now() - interval '2 days'
       WHERE namespace = 'journal' AND key = 'key-0007'`,
    );

    const listed = await collect(maintenance.listRecordKeys('journal'));
    expect(listed.map((record) => record.key).sort()).toEqual(keys);
    const now = Date.now();
    for (const record of listed) {
      const expected = record.key === 'key-0007' ? now - 2 * DAY_MS : now;
      expect(Math.abs(record.writtenAtMs - expected)).toBeLessThan(10_000);
    }

    await maintenance.deleteRecord('journal', 'key-0500');
    await maintenance.deleteRecord('journal', 'no-such-key');
    await expect(store.getRecord('journal', 'key-0500')).resolves.toBeUndefined();
    await expect(store.getRecord('journal', 'key-0501')).resolves.toEqual({ key: 'key-0501' });
    await expect(store.getRecord('other', 'key-0000')).resolves.toBe('another namespace');
    expect(await collect(maintenance.listRecordKeys('journal'))).toHaveLength(1004);
  });

  test("a job's streams are deleted, and only that job's", async () => {
    for (const jobId of ['job-gone', 'job-kept']) {
      await store.appendEvents(jobId, [
        { seq: 1, event: { n: 1 } },
        { seq: 2, event: { n: 2 } },
      ]);
      await store.appendLiveEvents(jobId, [{ delta: 'a' }, { delta: 'b' }]);
    }
    await maintenance.deleteJobStreams('job-gone');
    await maintenance.deleteJobStreams('no-such-job');

    await expect(store.lastSeq('job-gone')).resolves.toBe(0);
    await expect(store.readEvents('job-gone')).resolves.toEqual([]);
    await expect(store.readLiveEvents('job-gone')).resolves.toEqual([]);
    // The live stream's count went too: it starts again from 1.
    await expect(store.appendLiveEvents('job-gone', [{ delta: 'c' }])).resolves.toEqual([1]);

    await expect(store.lastSeq('job-kept')).resolves.toBe(2);
    await expect(store.readLiveEvents('job-kept')).resolves.toEqual([
      { seq: 1, event: { delta: 'a' } },
      { seq: 2, event: { delta: 'b' } },
    ]);
    await expect(store.appendLiveEvents('job-kept', [{ delta: 'c' }])).resolves.toEqual([3]);
  });

  test('bad arguments are refused', async () => {
    await expect(collect(maintenance.listObjectsPutBefore(Number.NaN))).rejects.toBeInstanceOf(
      JobStoreError,
    );
    await expect(
      maintenance.removeObjectsPutBefore(['not-a-ref' as ObjectRef], Date.now()),
    ).rejects.toBeInstanceOf(JobStoreError);
    await expect(maintenance.removeObjectsPutBefore([], Infinity)).rejects.toBeInstanceOf(
      JobStoreError,
    );
    await expect(maintenance.deleteJobStreams('')).rejects.toBeInstanceOf(JobStoreError);
    await expect(maintenance.deleteRecord('journal', '')).rejects.toBeInstanceOf(JobStoreError);
    await expect(collect(maintenance.listRecordKeys(''))).rejects.toBeInstanceOf(JobStoreError);
  });

  test('a database with the previous objects table gets touched_at and reads back', async () => {
    const oldUrl = await server.createDatabase(`maintenance_old_schema_${databaseCount}`);
    const oldClient = new pg.Client({ connectionString: oldUrl });
    await oldClient.connect();
    const value = { role: 'user', content: 'stored before touched_at' };
    const { ref, text } = encodeObject(value);
    const oldStore = new PostgresJobStore({ connectionString: oldUrl });
    try {
      await oldClient.query(`CREATE TABLE dar_store_objects (
        ref text PRIMARY KEY,
        body text NOT NULL,
        size_bytes integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
      await oldClient.query(
        `INSERT INTO dar_store_objects (ref, body, size_bytes, created_at)
         VALUES ($1, $2, $3, now() - interval '30 days')`,
        [ref, text, Buffer.byteLength(text, 'utf8')],
      );

      await expect(oldStore.getObject(ref)).resolves.toEqual(value);
      const { rows } = await oldClient.query<{ seconds: number }>(
        `SELECT extract(epoch FROM now() - touched_at)::double precision AS seconds
         FROM dar_store_objects WHERE ref = $1`,
        [ref],
      );
      expect(rows[0]?.seconds).toBeLessThan(60);
      const indexes = await oldClient.query(
        `SELECT FROM pg_indexes WHERE indexname = 'dar_store_objects_touched_at'`,
      );
      expect(indexes.rowCount).toBe(1);
      const cutoffMs = Date.now() - DAY_MS;
      expect(await collect(oldStore.maintenance().listObjectsPutBefore(cutoffMs))).toEqual([]);
    } finally {
      await Promise.all([oldStore.close(), oldClient.end()]);
    }
  });

  test('a store opening on a migrated database does not wait for transactions on the objects table', async () => {
    await store.putObject({ note: 'creates the schema' });
    const writer = new pg.Client({ connectionString: url });
    await writer.connect();
    // A short statement timeout: a schema step that locked the table would wait for the writer.
    const opening = new PostgresJobStore({ connectionString: url, queryTimeoutMs: 3_000 });
    try {
      await writer.query('BEGIN');
      await writer.query(`DELETE FROM dar_store_objects WHERE ref = 'none'`);
      await expect(opening.putObject({ note: 'while a writer is open' })).resolves.toMatch(
        /^sha256:/,
      );
    } finally {
      await writer.query('ROLLBACK');
      await Promise.all([opening.close(), writer.end()]);
    }
  });
});
