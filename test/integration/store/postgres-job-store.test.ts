import pg from 'pg';
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
