/**
 * `pruneStore` on PostgreSQL with the store encrypted, jobs run by a real worker: the kept job's
 * references are inside sealed objects, so only a pruner that opens them keeps its transcript;
 * one given no keys refuses before it deletes anything.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { JOB_STATUS_RECORD } from '../../../src/activities/job-status-record.js';
import { startJob, type AgentJob } from '../../../src/client/job-client.js';
import { EncryptingJobStore } from '../../../src/encryption/encrypting-job-store.js';
import { keyringOf } from '../../../src/encryption/encryption-keys.js';
import { pruneStore } from '../../../src/retention/prune-store.js';
import { temporalJobDirectory } from '../../../src/retention/temporal-job-directory.js';
import { ObjectNotFound, PostgresJobStore, type ObjectRef } from '../../../src/store/index.js';
import type { AgentWorker } from '../../../src/worker/agent-worker-group.js';
import type { AgentJobInput } from '../../../src/workflows/job-types.js';
import { createTestWorker, uniqueName } from '../../support/agent-harness.js';
import { finishedJob } from './finished-job.js';
import { startPostgresServer, type PostgresServer } from '../../support/postgres-server.js';
import { startDevServer } from '../../support/temporal-server.js';

let postgres: PostgresServer;
let environment: TestWorkflowEnvironment;
let plain: PostgresJobStore;
let store: EncryptingJobStore;
let database: pg.Client;
let worker: AgentWorker;
let workerRun: Promise<void>;
const taskQueue = uniqueName('prune-postgres');

beforeAll(async () => {
  postgres = await startPostgresServer();
  const url = await postgres.createDatabase('prune');
  plain = new PostgresJobStore({ connectionString: url, follow: { intervalMs: 50 } });
  store = new EncryptingJobStore(plain, keyringOf([{ id: 'k1', key: randomBytes(32) }], 'k1'));
  database = new pg.Client({ connectionString: url });
  await database.connect();
  environment = await startDevServer();
  worker = await createTestWorker(environment, taskQueue, store);
  workerRun = worker.run();
}, 120_000);

afterAll(async () => {
  worker?.shutdown();
  await workerRun;
  await environment?.teardown();
  await database?.end();
  await store?.close();
  await postgres?.destroy();
});

function startOnStore(input: AgentJobInput): Promise<AgentJob> {
  return startJob(environment.client, input, {
    taskQueue,
    workflowId: uniqueName('prune'),
    store,
  });
}

test('on PostgreSQL with an encrypted store, prune deletes the old job and its objects and keeps the later one whole; without keys it refuses', async () => {
  const old = await finishedJob('alpha', startOnStore);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const threshold = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const recent = await finishedJob('delta', startOnStore);
  const oldFinal = (await old.result()).finalMessageRef as ObjectRef;
  const recentTranscript = await recent.transcript();
  const recentEvents = await recent.allEvents();
  expect(JSON.stringify(recentTranscript)).toContain('delta output only');

  // Everything stored so far was put three days ago, by the database's clock.
  await database.query(`UPDATE dar_store_objects SET touched_at = now() - interval '3 days'`);
  await database.query(`UPDATE dar_store_records SET updated_at = now() - interval '3 days'`);
  const { rows: before } = await database.query<{ count: string }>(
    'SELECT count(*) AS count FROM dar_store_objects',
  );
  const directory = temporalJobDirectory(environment.client);
  const options = { directory, olderThanMs: Date.now() - threshold, apply: true };

  await expect(pruneStore({ ...options, store: plain })).rejects.toThrow(
    /encrypted with key "k1".*give it the keys the workers use/,
  );
  expect(await store.getRecord(JOB_STATUS_RECORD, old.workflowId)).toBeDefined();

  const report = await pruneStore({ ...options, store });
  expect(report.deletedJobs).toEqual([old.workflowId]);
  expect(report.removedObjects.count).toBeGreaterThan(0);
  const { rows: after } = await database.query<{ count: string }>(
    'SELECT count(*) AS count FROM dar_store_objects',
  );
  expect(Number(after[0]?.count)).toBe(Number(before[0]?.count) - report.removedObjects.count);

  expect(await store.readEvents(old.workflowId)).toEqual([]);
  await expect(store.getObject(oldFinal)).rejects.toBeInstanceOf(ObjectNotFound);
  expect(await recent.transcript()).toEqual(recentTranscript);
  expect(await recent.allEvents()).toEqual(recentEvents);
}, 120_000);
