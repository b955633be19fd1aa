import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities } from '../../../src/activities/index.js';
import { FileJobStore } from '../../../src/store/file/file-job-store.js';
import type { JobStore } from '../../../src/store/job-store.js';

let store: JobStore;

beforeAll(async () => {
  store = await FileJobStore.open({ folder: mkdtempSync(join(tmpdir(), 'dar-missing-')) });
});

afterAll(async () => {
  await store.close();
});

/** A transcript the store never held: a job started on another store, or pruned since. */
const elsewhere = {
  pointer: { head: `sha256:${'0'.repeat(64)}`, count: 1 },
  unstored: [],
};

test("a model call on a transcript the store does not hold fails for good, and says why (the job's data is not in this store)", async () => {
  const activities = createActivities([], store);
  const failure = await new MockActivityEnvironment()
    .run(activities.callModelWithStore, {
      jobId: 'job-from-elsewhere',
      model: 'scripted:/nowhere.json',
      callIndex: 1,
      systemPrompt: '',
      tools: [],
      transcript: elsewhere,
    })
    .then(
      () => undefined,
      (error: unknown) => error,
    );
  expect(failure).toBeInstanceOf(ApplicationFailure);
  expect(failure).toMatchObject({ type: 'JobStoreError', nonRetryable: true });
  const message = (failure as Error).message;
  expect(message).toContain(`No object is stored under ${elsewhere.pointer.head}`);
  expect(message).toContain("this job store does not hold the job's data");
  expect(message).toContain('dar prune');
  expect(message).toContain('DAR_STORE_URL');
});
