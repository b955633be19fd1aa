import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import { getJob, startJob } from '../../../src/client/job-client.js';
import { JobIdError, MAXIMUM_JOB_ID_BYTES } from '../../../src/client/job-id.js';
import { MessageTooLongError } from '../../../src/client/message-length.js';
import { PayloadTooLargeError } from '../../../src/client/payload-limit.js';
import { MAXIMUM_USER_MESSAGE_LENGTH } from '../../../src/core/limits.js';
import { followUpSignal } from '../../../src/workflows/definitions.js';
import { scriptedRequestsFolder } from '../../../src/providers/scripted-provider.js';
import { STORE_LARGE_MESSAGES_PATCH } from '../../../src/workflows/large-messages.js';
import { MODEL_CALL_ACTIVITIES } from '../../../src/workflows/model-call-activities.js';
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

/** Once the kept-open job waits again after its second model call: cancels it, and its roles. */
async function rolesAfterSecondRun(job: Awaited<ReturnType<typeof startTestJob>>) {
  await waitUntilWaiting(job, 2);
  await job.cancel();
  return (await job.transcript()).map((message) => message.role);
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

test('a job id over 255 bytes or holding a space is refused with what is wrong; no job starts, and a 255-byte id starts one', async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [{ stopReason: 'stop', content: [text('answered')] }]);
  const input = jobInput({ model, workspace: folder });
  const options = { taskQueue: server.taskQueue, store: server.store };
  const longest = uniqueName('longest-id').padEnd(MAXIMUM_JOB_ID_BYTES, 'x');
  // The server itself would take this one (its limit is 1,000), with no word on the length.
  const tooLong = `${longest}é`;
  const spaced = `${uniqueName('spaced')} id`;

  const refusedLong = startJob(server.environment.client, input, {
    ...options,
    workflowId: tooLong,
  });
  await expect(refusedLong).rejects.toBeInstanceOf(JobIdError);
  await expect(refusedLong).rejects.toThrow(/ has 257 bytes, over the limit of 255$/);
  const refusedSpaced = startJob(server.environment.client, input, {
    ...options,
    workflowId: spaced,
  });
  await expect(refusedSpaced).rejects.toThrow(/holds a space .*\(U\+0020\) at character/);
  for (const workflowId of [tooLong, spaced]) {
    await expect(
      server.environment.client.workflow.getHandle(workflowId).describe(),
    ).rejects.toBeInstanceOf(WorkflowNotFoundError);
  }

  const job = await startJob(server.environment.client, input, {
    ...options,
    workflowId: longest,
  });
  expect(Buffer.byteLength(job.workflowId)).toBe(MAXIMUM_JOB_ID_BYTES);
  expect((await job.result()).status).toMatchObject({ phase: 'done', stopReason: 'stop' });
});

test('R20: a follow-up or steering message over the length limit is refused before it is sent; the job goes on and takes the next one', async () => {
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

  const overLimit = 'y'.repeat(MAXIMUM_USER_MESSAGE_LENGTH + 1);
  await expect(job.followUp(overLimit)).rejects.toThrow(
    `The follow-up message has ${MAXIMUM_USER_MESSAGE_LENGTH + 1} characters, over the limit of ${MAXIMUM_USER_MESSAGE_LENGTH}`,
  );
  await expect(job.steer(OVERSIZED)).rejects.toBeInstanceOf(MessageTooLongError);
  // At the limit it is sent, and the next run reads it whole.
  const atLimit = 'z'.repeat(MAXIMUM_USER_MESSAGE_LENGTH);
  await job.followUp(atLimit);
  expect(await rolesAfterSecondRun(job)).toEqual(['user', 'assistant', 'user', 'assistant']);
  // Nothing refused reached the job's history. Read once the job has ended: a signal that
  // arrives while a workflow task runs is written to history only when that task completes.
  const history = await job.handle.fetchHistory();
  const signals = (history.events ?? []).filter(
    (event) => event.workflowExecutionSignaledEventAttributes,
  );
  expect(signals).toHaveLength(1);
  const transcript = await job.transcript();
  expect(JSON.stringify(transcript[2])).toContain(atLimit);
});

test('a failure that is not about size passes through unchanged', async () => {
  const missing = getJob(server.environment.client, uniqueName('no-such-job'), server.store);
  await expect(missing.steer('hello')).rejects.toBeInstanceOf(WorkflowNotFoundError);
});

test('R20: follow-ups that together pass the payload limit are stored before the model call that takes them all', async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [
    // Slow enough for both follow-ups to be queued before the run ends.
    { stopReason: 'stop', content: [text('first answer')], delayMs: 1500 },
    { stopReason: 'stop', content: [text('read both')] },
  ]);
  mkdirSync(scriptedRequestsFolder(model.slice('scripted:'.length)));
  const job = await startTestJob(
    server,
    jobInput({ model, workspace: folder, keepOpenMs: 60_000, followUpMode: 'all' }),
  );
  const first = 'a'.repeat(1_200_000);
  const second = 'b'.repeat(1_200_000);
  // Sent as a client other than `AgentJob` may send them, past its message length limit.
  await job.handle.signal(followUpSignal, first);
  await job.handle.signal(followUpSignal, second);

  // One turn takes both (2.4 MB together): the job goes on instead of failing its task.
  expect(await rolesAfterSecondRun(job)).toEqual([
    'user',
    'assistant',
    'user',
    'user',
    'assistant',
  ]);
  const seen = JSON.parse(
    readFileSync(join(scriptedRequestsFolder(model.slice('scripted:'.length)), '1.json'), 'utf8'),
  ) as { messages: { role: string; content: unknown }[] };
  expect(JSON.stringify(seen.messages)).toContain(first);
  expect(JSON.stringify(seen.messages)).toContain(second);

  // History holds the second call's input small: the messages went to the store first.
  const history = await server.environment.client.workflow.getHandle(job.workflowId).fetchHistory();
  const modelInputs = (history.events ?? []).flatMap((event) => {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (!MODEL_CALL_ACTIVITIES.has(scheduled?.activityType?.name ?? '')) return [];
    return [scheduled?.input?.payloads?.[0]?.data?.length ?? 0];
  });
  expect(modelInputs).toHaveLength(2);
  expect(modelInputs[1]).toBeLessThan(64 * 1024);
  const markers = (history.events ?? []).flatMap((event) =>
    (event.markerRecordedEventAttributes?.details?.['patch-data']?.payloads ?? []).map((payload) =>
      Buffer.from(payload.data ?? new Uint8Array()).toString('utf8'),
    ),
  );
  expect(markers.join()).toContain(STORE_LARGE_MESSAGES_PATCH);
});
