import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { readerIdentity, workerPollsLately } from '../../../src/cli/worker-presence.js';
import { createAgentWorker } from '../../../src/worker/agent-worker.js';
import { openTestStore, uniqueName } from '../../support/agent-harness.js';
import { startDevServer } from '../../support/temporal-server.js';

let environment: TestWorkflowEnvironment;

beforeAll(async () => {
  environment = await startDevServer();
}, 120_000);

afterAll(async () => {
  await environment?.teardown();
});

/** Runs `body` while a workflow-only worker polls `taskQueue` (with `identity`, when given). */
async function whileWorkerPolls(
  taskQueue: string,
  body: () => Promise<void>,
  identity?: string,
): Promise<void> {
  const store = await openTestStore();
  const worker = await createAgentWorker({
    connection: environment.nativeConnection,
    taskQueue,
    store,
    workflowsOnly: true,
    ...(identity === undefined ? {} : { workerOptions: { identity } }),
  });
  await worker.runUntil(body);
  await store.close();
}

test('a queue no worker ever polled has no worker; one a worker polls has one, until its last poll is old', async () => {
  const { client } = environment;
  const taskQueue = uniqueName('presence');
  expect(await workerPollsLately(client, 'default', taskQueue)).toBe(false);

  await whileWorkerPolls(taskQueue, async () => {
    // The worker's first long poll reaches the server a moment after it starts.
    let polled = false;
    for (let attempt = 0; attempt < 50 && !polled; attempt += 1) {
      polled = await workerPollsLately(client, 'default', taskQueue);
      if (!polled) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(polled).toBe(true);
    // Seen from two minutes later, that poll is too old to stand for a running worker.
    expect(await workerPollsLately(client, 'default', taskQueue, Date.now() + 120_000)).toBe(false);
  });
});

test("a command's own reader worker does not count as a running worker", async () => {
  const { client } = environment;
  const taskQueue = uniqueName('reader');
  await whileWorkerPolls(
    taskQueue,
    async () => {
      // Its poll is listed; it is passed over.
      let listed = false;
      for (let attempt = 0; attempt < 50 && !listed; attempt += 1) {
        const described = await client.workflowService.describeTaskQueue({
          namespace: 'default',
          taskQueue: { name: taskQueue },
          taskQueueType: 1, // workflow tasks
        });
        listed = (described.pollers ?? []).length > 0;
        if (!listed) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(listed).toBe(true);
      expect(await workerPollsLately(client, 'default', taskQueue)).toBe(false);
    },
    readerIdentity(),
  );
});

test('a server that cannot tell counts as having a worker (the read then waits as before)', async () => {
  // An unknown namespace: the server refuses to describe the queue.
  expect(await workerPollsLately(environment.client, uniqueName('no-such-namespace'), 'q')).toBe(
    true,
  );
});
