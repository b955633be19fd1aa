/**
 * Events and status leave the workflow through a sink, not a local activity per burst: a turn
 * does not wait for the store, events reach readers while the job runs, and the durable writes
 * every few turns (and at the end) repeat them, so the stream is whole even when every sink
 * write is lost or a worker replays the job from its history.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentWorker } from '../../../src/worker/agent-worker-group.js';
import type { StoredEvent } from '../../../src/store/references.js';
import type { JobStore } from '../../../src/store/job-store.js';
import {
  createTestWorker,
  jobInput,
  scriptedModel,
  startTestJob,
  temporaryFolder,
  text,
  toolCall,
  uniqueName,
  useAgentTestServer,
} from '../../support/agent-harness.js';
import { workflowRuns } from '../../support/workflow-history.js';

const server = useAgentTestServer('progress-sink');

const TURNS = 12;

function echoTurns(count: number) {
  return [
    ...Array.from({ length: count }, (_, index) => ({
      stopReason: 'toolUse' as const,
      content: [text(`turn ${index}`), toolCall(`call-${index}`, 'bash', { command: 'true' })],
    })),
    { stopReason: 'stop' as const, content: [text('all done')] },
  ];
}

/** A job's whole stream, read straight from the store. */
async function storedStream(store: JobStore, jobId: string): Promise<StoredEvent[]> {
  return store.readEvents(jobId, { limit: 100_000 });
}

function typesOf(events: StoredEvent[]): string[] {
  return events.map((stored) => (stored.event as { type: string }).type);
}

/**
 * The stream of a run of `turns` tool turns and a final answer (R1-R4): numbered 1..n without
 * a gap, each turn's events present once, `agent_end` last.
 */
function expectWholeStream(events: StoredEvent[], turns: number): void {
  expect(events.map((stored) => stored.seq)).toEqual(events.map((_, index) => index + 1));
  const types = typesOf(events);
  expect(types.filter((type) => type === 'agent_start')).toHaveLength(1);
  expect(types.filter((type) => type === 'turn_start')).toHaveLength(turns + 1);
  expect(types.filter((type) => type === 'turn_end')).toHaveLength(turns + 1);
  expect(types.filter((type) => type === 'tool_execution_end')).toHaveLength(turns);
  expect(types.at(-1)).toBe('agent_end');
}

async function localActivityMarkers(job: Awaited<ReturnType<typeof startTestJob>>) {
  const runs = await workflowRuns(server.environment.client, job.handle);
  return runs
    .flatMap((run) => run.events)
    .filter((event) => event.markerRecordedEventAttributes?.markerName === 'core_local_activity')
    .length;
}

async function withWorker<T>(worker: AgentWorker, body: () => Promise<T>): Promise<T> {
  const running = worker.run();
  try {
    return await body();
  } finally {
    worker.shutdown();
    await running;
  }
}

test('a turn writes no local activity: a 12-turn job records 2 durable writes, and its stream is whole', async () => {
  const folder = temporaryFolder();
  const job = await startTestJob(
    server,
    jobInput({ model: scriptedModel(folder, echoTurns(TURNS)), workspace: folder }),
  );
  const result = await job.result();
  expect(result.status.phase).toBe('done');
  // One durable write after 10 turns and one at the end (it was one per burst: about 4 a turn).
  expect(await localActivityMarkers(job)).toBe(2);
  expectWholeStream(await storedStream(server.store, job.workflowId), TURNS);
});

test('events reach the store while the job runs, before any durable write', async () => {
  const folder = temporaryFolder();
  const release = join(folder, 'release');
  const model = scriptedModel(folder, [
    {
      stopReason: 'toolUse',
      content: [
        toolCall('wait', 'bash', { command: `while [ ! -f ${release} ]; do sleep 0.05; done` }),
      ],
    },
    { stopReason: 'stop', content: [text('released')] },
  ]);
  const job = await startTestJob(server, jobInput({ model, workspace: folder }));
  let seen: string[] = [];
  for (let tries = 0; tries < 200 && !seen.includes('tool_execution_start'); tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    seen = typesOf(await storedStream(server.store, job.workflowId));
  }
  expect(seen).toEqual(
    expect.arrayContaining(['agent_start', 'turn_start', 'message_end', 'tool_execution_start']),
  );
  expect(await localActivityMarkers(job)).toBe(0);
  // The stored status follows within a second (a turn's model/tools flips are paced).
  let phase = (await job.status()).phase;
  for (let tries = 0; tries < 40 && phase !== 'tools'; tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    phase = (await job.status()).phase;
  }
  expect(phase).toBe('tools');
  writeFileSync(release, '');
  const result = await job.result();
  expect(result.status.phase).toBe('done');
  expectWholeStream(await storedStream(server.store, job.workflowId), 1);
});

test('every sink write lost: the durable writes alone leave the whole stream', async () => {
  const folder = temporaryFolder();
  const taskQueue = uniqueName('lossy-sink');
  // A worker that drops every sink write, as one that dies before making them would.
  const worker = await createTestWorker(server.environment, taskQueue, server.store, {
    sinks: { jobProgress: { write: { fn: () => undefined } } },
  });
  await withWorker(worker, async () => {
    const job = await startTestJob(
      { ...server, taskQueue },
      jobInput({ model: scriptedModel(folder, echoTurns(TURNS)), workspace: folder }),
    );
    await job.result();
    expectWholeStream(await storedStream(server.store, job.workflowId), TURNS);
  });
});

test('one sink write per workflow activation at most: the events of parallel results go out together', async () => {
  const folder = temporaryFolder();
  const taskQueue = uniqueName('counted-sink');
  const writes: number[] = [];
  const worker = await createTestWorker(server.environment, taskQueue, server.store, {
    sinks: {
      jobProgress: {
        write: {
          fn: (_info, ...args: unknown[]) => {
            writes.push((args[0] as { events: unknown[] }).events.length);
          },
        },
      },
    },
  });
  const parallelTurn = (turn: number) => ({
    stopReason: 'toolUse' as const,
    content: ['a', 'b', 'c'].map((name) => toolCall(`${name}${turn}`, 'bash', { command: 'true' })),
  });
  await withWorker(worker, async () => {
    const job = await startTestJob(
      { ...server, taskQueue },
      jobInput({
        model: scriptedModel(folder, [
          parallelTurn(1),
          parallelTurn(2),
          parallelTurn(3),
          { stopReason: 'stop', content: [text('done')] },
        ]),
        workspace: folder,
      }),
    );
    await job.result();
    const runs = await workflowRuns(server.environment.client, job.handle);
    const activations = runs
      .flatMap((run) => run.events)
      .filter((event) => event.workflowTaskCompletedEventAttributes != null).length;
    expect(writes.length).toBeGreaterThan(0);
    expect(writes.length).toBeLessThanOrEqual(activations);
    const stream = await storedStream(server.store, job.workflowId);
    expect(stream.map((stored) => stored.seq)).toEqual(stream.map((_, index) => index + 1));
    expect(typesOf(stream).filter((type) => type === 'tool_execution_end')).toHaveLength(9);
    expect(typesOf(stream).at(-1)).toBe('agent_end');
  });
});

test('a worker that replays the job on every task still writes the whole stream once', async () => {
  const folder = temporaryFolder();
  const taskQueue = uniqueName('no-cache');
  // No workflow cache: each workflow task replays the history, and sink calls made during
  // replay are dropped; the first live activation sends what the replay recorded.
  const worker = await createTestWorker(server.environment, taskQueue, server.store, {
    maxCachedWorkflows: 0,
  });
  await withWorker(worker, async () => {
    const job = await startTestJob(
      { ...server, taskQueue },
      jobInput({ model: scriptedModel(folder, echoTurns(TURNS)), workspace: folder }),
    );
    await job.result();
    expectWholeStream(await storedStream(server.store, job.workflowId), TURNS);
  });
});
