import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { PostgresJobStore, type JobStore } from '../../../src/store/index.js';
import { describeJobStoreContract } from '../../support/job-store-contract.js';
import { startPostgresServer, type PostgresServer } from '../../support/postgres-server.js';

let server: PostgresServer;
let databaseCount = 0;
let currentUrl = '';

beforeAll(async () => {
  server = await startPostgresServer();
});

afterAll(async () => {
  await server?.destroy();
});

const openStore = (url: string): JobStore =>
  new PostgresJobStore({ connectionString: url, follow: { intervalMs: 50, gapWaitMs: 500 } });

describe('PostgreSQL job store', () => {
  describeJobStoreContract({
    async open() {
      databaseCount += 1;
      currentUrl = await server.createDatabase(`store_${databaseCount}`);
      return openStore(currentUrl);
    },
    async openAnother() {
      return openStore(currentUrl);
    },
    async corruptObject(ref) {
      const client = new pg.Client({ connectionString: currentUrl });
      await client.connect();
      try {
        await client.query(`UPDATE dar_store_objects SET body = '{"amount":1000}' WHERE ref = $1`, [
          ref,
        ]);
      } finally {
        await client.end();
      }
    },
  });

  test('a follower hears of appends by another store at once (LISTEN/NOTIFY), not at its next poll', async () => {
    const url = await server.createDatabase('store_notices');
    // A poll interval far longer than the test's bound: only a notice can wake the follower.
    const follower = new PostgresJobStore({
      connectionString: url,
      follow: { intervalMs: 30_000 },
    });
    const writer = openStore(url);
    try {
      const controller = new AbortController();
      const seen: number[] = [];
      const following = (async () => {
        for await (const stored of follower.followEvents('job-n', 0, controller.signal)) {
          seen.push(stored.seq);
          if (stored.seq === 3) controller.abort();
        }
      })();
      await sleep(500);
      const started = Date.now();
      await writer.appendEvents('job-n', [{ seq: 1, event: { n: 1 } }]);
      await sleep(300);
      await writer.appendEvents('other-job', [{ seq: 1, event: { n: 1 } }]);
      await writer.appendEvents('job-n', [
        { seq: 2, event: { n: 2 } },
        { seq: 3, event: { n: 3 } },
      ]);
      await following;
      expect(seen).toEqual([1, 2, 3]);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await Promise.all([follower.close(), writer.close()]);
    }
  });

  test('a record written not durably commits without waiting for the log flush, and only that write', async () => {
    const url = await server.createDatabase('store_record_commit');
    // One connection, so the reads below run where the writes ran.
    const store = new PostgresJobStore({ connectionString: url, maxConnections: 1 });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      // The test server commits without flushing by default; this database's sessions flush,
      // as a production server's do.
      await client.query('ALTER DATABASE store_record_commit SET synchronous_commit = on');
      await store.putRecord('setup', 'key', 0);
      // Each write notes the commit setting in force inside its own transaction.
      await client.query(`
        CREATE TABLE commit_settings (key text, setting text);
        CREATE FUNCTION note_commit_setting() RETURNS trigger AS $$
        BEGIN
          INSERT INTO commit_settings VALUES (NEW.key, current_setting('synchronous_commit'));
          RETURN NEW;
        END $$ LANGUAGE plpgsql;
        CREATE TRIGGER note_commit_setting AFTER INSERT OR UPDATE ON dar_store_records
          FOR EACH ROW EXECUTE FUNCTION note_commit_setting();`);
      await store.putRecord('job-status', 'quick', { phase: 'model' }, { durable: false });
      await store.putRecord('job-status', 'durable', { phase: 'done' });
      await store.putRecord('job-status', 'quick', { phase: 'tools' }, { durable: false });
      const { rows } = await client.query<{ key: string; setting: string }>(
        'SELECT key, setting FROM commit_settings',
      );
      expect(rows).toEqual([
        { key: 'quick', setting: 'off' },
        { key: 'durable', setting: 'on' },
        { key: 'quick', setting: 'off' },
      ]);
      await expect(store.getRecord('job-status', 'quick')).resolves.toEqual({ phase: 'tools' });
    } finally {
      await Promise.all([client.end(), store.close()]);
    }
  });

  test('two stores creating the tables at once on a fresh database both succeed', async () => {
    const url = await server.createDatabase('store_schema_race');
    const stores = Array.from({ length: 4 }, () => openStore(url));
    try {
      await Promise.all(stores.map((store, index) => store.putRecord('race', 'key', index)));
      expect(await stores[0]?.getRecord('race', 'key')).toEqual(expect.any(Number));
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });
});
