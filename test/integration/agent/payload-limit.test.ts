import { WorkflowNotFoundError } from '@temporalio/client';
import { getJob, startJob } from '../../../src/client/job-client.js';
import { PayloadTooLargeError } from '../../../src/client/payload-limit.js';
import {
  jobInput,
  scriptedModel,
  startTestJob,
  temporaryFolder,
  text,
  uniqueName,
  useAgentTestServer,
} from '../../support/agent-harness.js';

/**
 * What a client sends a job is one payload in history: past the server's limit (2 MB on the
 * dev server) it is refused, and the client says what was too large and what to do, instead of
 * the server's bare "Failed to start Workflow". Real dev server.
 */
const server = useAgentTestServer('payload-limit');

/** Over the dev server's 2 MB limit as JSON. */
const OVERSIZED = 'x'.repeat(2_500_000);

/** Waits until the job waits for a follow-up after `modelCalls` model calls. */
async function waitUntilWaiting(
  job: Awaited<ReturnType<typeof startTestJob>>,
  modelCalls: number,
): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const status = await job.status();
    if (status.phase === 'waiting' && status.modelCalls === modelCalls) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`job never waited after ${modelCalls} model calls`);
}

test('a job input over the payload limit is refused with its size and what to do; no job starts', async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [{ stopReason: 'stop', content: [text('never')] }]);
  const workflowId = uniqueName('oversized');

  const started = startJob(
    server.environment.client,
    jobInput({ model, workspace: folder, prompt: OVERSIZED }),
    { taskQueue: server.taskQueue, workflowId, store: server.store },
  );

  await expect(started).rejects.toBeInstanceOf(PayloadTooLargeError);
  await expect(started).rejects.toThrow(
    /^The job's input is 2\.5 MB as JSON, over the Temporal server's payload limit .* workspace/,
  );
  await expect(
    server.environment.client.workflow.getHandle(workflowId).describe(),
  ).rejects.toBeInstanceOf(WorkflowNotFoundError);
});

test('R20: a follow-up over the payload limit is refused; the job goes on and takes the next one', async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [
    { stopReason: 'stop', content: [text('first answer')] },
    { stopReason: 'stop', content: [text('second answer')] },
  ]);
  const job = await startTestJob(
    server,
    jobInput({ model, workspace: folder, keepOpenMs: 60_000 }),
  );
  await waitUntilWaiting(job, 1);

  await expect(job.followUp(OVERSIZED)).rejects.toThrow(
    /^The follow-up message is 2\.5 MB as JSON/,
  );
  await expect(job.steer(OVERSIZED)).rejects.toBeInstanceOf(PayloadTooLargeError);
  await job.followUp('a question of normal size');
  await waitUntilWaiting(job, 2);
  await job.cancel();
  const transcript = await job.transcript();
  expect(transcript.map((message) => message.role)).toEqual([
    'user',
    'assistant',
    'user',
    'assistant',
  ]);
});

test('a failure that is not about size passes through unchanged', async () => {
  const missing = getJob(server.environment.client, uniqueName('no-such-job'), server.store);
  await expect(missing.steer('hello')).rejects.toBeInstanceOf(WorkflowNotFoundError);
});
