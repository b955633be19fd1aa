/**
 * Readers of the job store through the CLI. Followers attached to a job with huge parallel tool
 * output cannot harm it (nothing they do reaches the workflow), and `dar events` reads a
 * finished job from the store with no worker at all.
 */
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { getJob } from '../../src/client/job-client.js';
import { FileJobStore } from '../../src/store/file/file-job-store.js';
import type { SequencedEvent } from '../../src/workflows/job-types.js';
import { eventKinds, payloadSizes } from '../support/workflow-history.js';
import {
  dar,
  describeResult,
  killLeftoverDars,
  linesOf,
  reportTiming,
  startDar,
} from './support/dar.js';
import { expectExit } from './support/expect-exit.js';
import { finalTurn, makeTempDir, removeDir, writeScript } from './support/files.js';
import { parseJsonLines, waitForCompletedJob } from './support/jobs.js';
import {
  connectToEmbeddedServer,
  jobResult,
  readServerJson,
  stopServer,
} from './support/temporal.js';
import { waitFor } from './support/wait.js';

const root = makeTempDir('store-readers');
const stateDir = join(root, 'state');
const workspace = join(root, 'workspace');
// Jobs and workers of this file use their own task queue.
const taskQueue = `store-readers-${process.pid}`;
const environment = { DAR_TASK_QUEUE: taskQueue };
const PARALLEL_CALLS = 40;
const OUTPUT_CHARACTERS = 40_000;
const PAYLOAD_LIMIT = 64 * 1024;

async function startDetachedJob(prompt: string, script: string): Promise<string> {
  const start = await dar(
    [
      'run',
      prompt,
      '--detach',
      '--model',
      `scripted:${script}`,
      '--workspace',
      workspace,
      '--state-dir',
      stateDir,
    ],
    { env: environment },
  );
  expectExit(start, 0);
  const [jobId] = linesOf(start.stdout);
  if (!jobId) throw new Error(`dar run --detach printed no id:\n${describeResult(start)}`);
  detachNotes.set(jobId, start.stderr);
  return jobId;
}

/** What each `dar run --detach` said on stderr, by job id. */
const detachNotes = new Map<string, string>();

function expectWholeEventLog(events: Array<Record<string, unknown>>): void {
  expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  expect(events.filter((event) => event.type === 'agent_end')).toHaveLength(1);
  expect(events.at(-1)?.type).toBe('agent_end');
}

beforeAll(() => {
  mkdirSync(workspace);
});

afterAll(async () => {
  await killLeftoverDars();
  await stopServer(stateDir);
  expect(readServerJson(stateDir)).toBeUndefined();
  removeDir(root);
});

test('no reader harms a job: 40 parallel bash calls of 40,000 characters each, followed in-process and by dar events --follow, complete with small history payloads', async () => {
  const command = `head -c ${OUTPUT_CHARACTERS} /dev/zero | tr '\\0' x`;
  const calls = Array.from({ length: PARALLEL_CALLS }, (_, index) => ({
    type: 'toolCall' as const,
    id: `wide-${index}`,
    name: 'bash',
    arguments: { command },
  }));
  const script = writeScript(root, 'wide.json', [
    { content: calls, stopReason: 'toolUse' },
    finalTurn('Printed it all.'),
  ]);
  const jobId = await startDetachedJob('print a lot in parallel', script);
  // No worker runs yet: the command says what will run the job.
  expect(detachNotes.get(jobId)).toContain(
    `No worker takes jobs from task queue ${taskQueue} now: \`dar worker\` carries job ${jobId} on.`,
  );

  // Both followers attach before any worker runs the job.
  const cliFollower = startDar(['events', jobId, '--follow', '--json', '--state-dir', stateDir], {
    env: environment,
    timeoutMs: 150_000,
  });
  const { client, close } = await connectToEmbeddedServer(stateDir);
  const store = await FileJobStore.open({ folder: join(stateDir, 'store') });
  try {
    const followed: SequencedEvent[] = [];
    const inProcessFollower = getJob(client, jobId, store).follow(
      (event) => {
        followed.push(event);
      },
      { pollMs: 50 },
    );
    const worker = startDar(['worker', '--state-dir', stateDir], {
      env: environment,
      timeoutMs: 150_000,
    });

    const end = await inProcessFollower;
    expect(end?.type).toBe('agent_end');
    expectWholeEventLog(followed);
    const cliEvents = await waitFor('dar events --follow to end', async () => {
      if (cliFollower.isRunning) return undefined;
      const done = await cliFollower.done;
      expectExit(done, 0);
      return parseJsonLines(done.stdout);
    });
    expectWholeEventLog(cliEvents);
    expect(cliEvents).toHaveLength(followed.length);

    const status = await waitForCompletedJob(jobId, { stateDir, env: environment }, 60_000);
    expect(status.stopReason).toBe('stop');
    const result = await jobResult(client, stateDir, jobId);
    expect(result.status.continuedAsNew).toBe(0);
    const results = result.messages.filter((message) => message.role === 'toolResult');
    expect(results.map((message) => message.toolCallId)).toEqual(calls.map((call) => call.id));
    for (const message of results) {
      expect(message.isError).toBe(false);
      const [block] = message.content;
      expect(block?.type === 'text' ? block.text : '').toContain('x'.repeat(1000));
    }

    // The history holds decisions only: no failed workflow task, no payload over 64 KB.
    const history = await client.workflow.getHandle(jobId).fetchHistory();
    const events = history.events ?? [];
    expect(eventKinds(events)).not.toContain('workflowTaskFailed');
    const largest = Math.max(...events.flatMap((event) => payloadSizes(event)));
    expect(largest).toBeLessThan(PAYLOAD_LIMIT);

    worker.signal('SIGTERM');
    expectExit(await worker.done, 0);
  } finally {
    await store.close();
    await close();
  }
}, 170_000);

test('dar events reads a finished job from the store with no worker running, and starts none', async () => {
  const script = writeScript(root, 'short.json', [
    {
      content: [{ type: 'toolCall', id: 'list', name: 'ls', arguments: {} }],
      stopReason: 'toolUse',
    },
    finalTurn('Listed.'),
  ]);
  // In the foreground, `dar run` carries the job with a worker of its own and exits with it.
  const jobId = `finished-job-${process.pid}`;
  const run = await dar(
    [
      'run',
      '--id',
      jobId,
      'list the folder',
      '--model',
      `scripted:${script}`,
      '--workspace',
      workspace,
      '--state-dir',
      stateDir,
      '--json',
    ],
    { env: environment, timeoutMs: 90_000 },
  );
  expectExit(run, 0);
  const runEvents = parseJsonLines(run.stdout);
  expectWholeEventLog(runEvents);

  // A task queue no worker ever polled: had `dar events` started one, it would poll there.
  const unusedQueue = `${taskQueue}-unused`;
  const events = await dar(['events', jobId, '--json', '--state-dir', stateDir], {
    env: { DAR_TASK_QUEUE: unusedQueue },
    timeoutMs: 60_000,
  });
  reportTiming('dar events on a finished job, no worker running', events.ms);
  expectExit(events, 0);
  const read = parseJsonLines(events.stdout);
  expectWholeEventLog(read);
  expect(read).toEqual(runEvents);
  expect(events.ms).toBeLessThan(10_000);

  const { client, close } = await connectToEmbeddedServer(stateDir);
  try {
    const queue = await client.workflowService.describeTaskQueue({
      namespace: 'default',
      taskQueue: { name: unusedQueue },
      taskQueueType: 1, // workflow tasks
    });
    expect(queue.pollers ?? []).toEqual([]);
  } finally {
    await close();
  }

  // The same store with its objects lost (deleted by hand): the reader says what that means.
  const damagedState = join(root, 'state-without-objects');
  cpSync(join(stateDir, 'store'), join(damagedState, 'store'), { recursive: true });
  rmSync(join(damagedState, 'store', 'objects'), { recursive: true });
  const damaged = await dar(['events', jobId, '--state-dir', damagedState], { timeoutMs: 60_000 });
  expectExit(damaged, 1);
  expect(damaged.stderr).toMatch(
    /^dar events: No object is stored under sha256:[0-9a-f]{64}: this job store does not hold the job's data/,
  );
  expect(damaged.stderr).toContain('DAR_STORE_URL');
}, 120_000);
