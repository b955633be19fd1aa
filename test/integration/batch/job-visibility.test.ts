import type { WorkflowHandle } from '@temporalio/client';
import { findTemporalBinary } from '../../../src/server/temporal-binary.js';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { startJob } from '../../../src/client/job-client.js';
import { exactPhaseOf, jobListQuery } from '../../../src/client/job-list-filter.js';
import { countJobsByPhase, listJobRows } from '../../../src/client/job-rows.js';
import { createAgentWorker } from '../../../src/worker/agent-worker.js';
import {
  SearchAttributesMissingError,
  registerMissingSearchAttributes,
} from '../../../src/worker/search-attributes-check.js';
import { agentWorkflowsPath } from '../../../src/worker/workflow-bundle-path.js';
import type { AgentJobInput } from '../../../src/workflows/job-types.js';
import { firstReleaseJob } from '../../../src/client/first-release-job.js';
import { RELEASE_FEATURES_PATCH } from '../../../src/workflows/release-features.js';
import {
  darBatchIdKey,
  darPhaseKey,
  darTurnsKey,
} from '../../../src/workflows/search-attributes.js';
import {
  openTestStore,
  scriptedModel,
  temporaryFolder,
  text,
  toolCall,
  uniqueName,
} from '../../support/agent-harness.js';
import { startDevServer } from '../../support/temporal-server.js';

/** Two model calls with a tool turn between: phases model, tools, model, done (published: running, done). */
function twoTurnJob(batchId: string): AgentJobInput {
  const folder = temporaryFolder('dar-visibility-');
  const model = scriptedModel(folder, [
    { stopReason: 'toolUse', content: [toolCall('l1', 'ls', {})] },
    { stopReason: 'stop', content: [text('listed')] },
  ]);
  return { prompt: 'list', model, workspace: folder, tools: ['ls'], batchId };
}

/** The `DarPhase` and `DarTurns` each upsert of a job's history set, in order. */
async function publishedPhaseAndTurns(
  handle: WorkflowHandle,
): Promise<{ phase: unknown; turns: unknown }[]> {
  const events = (await handle.fetchHistory()).events ?? [];
  return events.flatMap((event) => {
    const fields =
      event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {};
    const valueOf = (name: string) => {
      const data = fields[name]?.data;
      return data ? (JSON.parse(Buffer.from(data).toString('utf8')) as unknown) : undefined;
    };
    const phase = valueOf('DarPhase');
    const turns = valueOf('DarTurns');
    return phase === undefined && turns === undefined ? [] : [{ phase, turns }];
  });
}

async function waitUntil<T>(read: () => Promise<T | undefined>): Promise<T> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('timed out');
}

test('a job publishes DarPhase, DarTurns and DarBatchId, the list filter finds it, and its history replays', async () => {
  const environment = await startDevServer();
  try {
    const taskQueue = uniqueName('visibility');
    const worker = await createAgentWorker({
      connection: environment.nativeConnection,
      taskQueue,
      store: await openTestStore(),
    });
    const batchId = uniqueName('batch').slice(0, 40);
    const job = await worker.runUntil(async () => {
      const started = await startJob(environment.client, twoTurnJob(batchId), { taskQueue });
      await started.handle.result();
      return started;
    });
    const attributes = (await job.handle.describe()).typedSearchAttributes;
    expect(attributes.get(darPhaseKey)).toBe('done');
    expect(attributes.get(darTurnsKey)).toBe(2);
    expect(attributes.get(darBatchIdKey)).toBe(batchId);

    // The upserts are in the history behind the patch marker; the history replays.
    const history = await job.handle.fetchHistory();
    const events = history.events ?? [];
    const patchIds = events.flatMap((event) => {
      const data = event.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0];
      if (!data?.data) return [];
      return [(JSON.parse(Buffer.from(data.data).toString('utf8')) as { id: string }).id];
    });
    // One patch for the release's features (the search attributes among them), not one each.
    expect(patchIds).toEqual([RELEASE_FEATURES_PATCH]);
    // (The SDK also upserts TemporalChangeVersion along with the patch marker.)
    const upserts = events.filter((event) =>
      Object.keys(
        event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {},
      ).some((name) => name.startsWith('Dar')),
    );
    // DarBatchId (an API client's batch id: `dar batch` sets it at the start instead), then
    // DarPhase `done` with the last turn. `running` and the count 0 the client set at the start;
    // never an upsert at every model/tools flip.
    expect(upserts).toHaveLength(2);
    await Worker.runReplayHistory({ workflowsPath: agentWorkflowsPath() }, history, job.workflowId);
    // Its marker tells clients the job keeps its events in the store.
    expect(await firstReleaseJob(job.handle)).toBe(false);

    // `dar list --batch X --phase done` is this filter.
    const found = await waitUntil(async () => {
      const rows = [];
      const query = jobListQuery({ batch: batchId, phase: 'done' });
      for await (const row of environment.client.workflow.list({ query })) rows.push(row);
      return rows.length > 0 ? rows : undefined;
    });
    expect(found.map((row) => row.workflowId)).toEqual([job.workflowId]);
  } finally {
    await environment.teardown();
  }
}, 90_000);

test('a worker refuses a namespace without the search attributes, naming the commands; the embedded server gets them added', async () => {
  const binary = findTemporalBinary();
  // A server started without `--search-attribute`: a cluster nobody prepared, or an embedded
  // server started by an older `dar`.
  const environment = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: binary
        ? { type: 'existing-path', path: binary.path }
        : { type: 'cached-download' },
      log: { format: 'pretty', level: 'error' },
    },
  });
  try {
    const taskQueue = uniqueName('unregistered');
    const store = await openTestStore();
    const attempt = createAgentWorker({
      connection: environment.nativeConnection,
      taskQueue,
      store,
    });
    await expect(attempt).rejects.toThrow(SearchAttributesMissingError);
    await expect(attempt).rejects.toThrow(
      'temporal operator search-attribute create --namespace default --name DarPhase --type Keyword',
    );
    // A client may start a job there before anyone registers them: it starts without the
    // attributes the client would set (the namespace refuses them) and publishes them itself.
    const early = await startJob(environment.client, twoTurnJob('early'), { taskQueue });
    expect((await early.handle.describe()).typedSearchAttributes.get(darPhaseKey)).toBeUndefined();

    await registerMissingSearchAttributes(environment.nativeConnection, 'default');
    const worker = await createAgentWorker({
      connection: environment.nativeConnection,
      taskQueue,
      store,
    });
    const [earlyPhase, phase] = await worker.runUntil(async () => {
      await early.handle.result();
      const job = await startJob(environment.client, twoTurnJob('late'), { taskQueue });
      await job.handle.result();
      return Promise.all(
        [early, job].map(async (started) =>
          (await started.handle.describe()).typedSearchAttributes.get(darPhaseKey),
        ),
      );
    });
    expect(earlyPhase).toBe('done');
    expect(phase).toBe('done');
    const earlyPhases = (await publishedPhaseAndTurns(early.handle)).flatMap(({ phase }) =>
      phase === undefined ? [] : [phase],
    );
    expect(earlyPhases).toEqual(['running', 'done']);
  } finally {
    await environment.teardown();
  }
}, 90_000);

test('a running job publishes DarPhase running; the list tells model from tools by the stored phase', async () => {
  const environment = await startDevServer();
  try {
    const taskQueue = uniqueName('visibility-running');
    const store = await openTestStore();
    const worker = await createAgentWorker({
      connection: environment.nativeConnection,
      taskQueue,
      store,
    });
    const folder = temporaryFolder('dar-visibility-');
    const batchId = uniqueName('running').slice(0, 40);
    const model = scriptedModel(folder, [
      { stopReason: 'toolUse', content: [toolCall('s1', 'bash', { command: 'sleep 60' })] },
      { stopReason: 'stop', content: [text('slept')] },
    ]);
    const input: AgentJobInput = {
      prompt: 'sleep',
      model,
      workspace: folder,
      tools: ['bash'],
      batchId,
    };
    await worker.runUntil(async () => {
      const job = await startJob(environment.client, input, { taskQueue });
      const rowsOf = (phase: string) =>
        listJobRows(
          environment.client,
          store,
          jobListQuery({ batch: batchId, phase }),
          10,
          exactPhaseOf({ phase }),
        );
      // While the tool sleeps: `running` in visibility, `tools` in the store.
      const running = await waitUntil(async () => {
        const rows = await rowsOf('running');
        return rows[0]?.phase === 'tools' ? rows : undefined;
      });
      expect(running.map((row) => row.id)).toEqual([job.workflowId]);
      const attributes = (await job.handle.describe()).typedSearchAttributes;
      expect(attributes.get(darPhaseKey)).toBe('running');
      expect((await rowsOf('tools')).map((row) => row.id)).toEqual([job.workflowId]);
      expect(await rowsOf('model')).toEqual([]);
      expect(await rowsOf('done')).toEqual([]);
      const counts = await countJobsByPhase(environment.client, jobListQuery({ batch: batchId }));
      expect(counts).toEqual({ all: 1, byPhase: { running: 1, approval: 0, waiting: 0, done: 0 } });
      await job.handle.cancel();
      await job.handle.result().catch(() => undefined);
    });
  } finally {
    await environment.teardown();
  }
}, 90_000);

test('DarTurns is published every ten turns while DarPhase stays running, and with every phase change', async () => {
  const environment = await startDevServer();
  try {
    const taskQueue = uniqueName('visibility-turns');
    const worker = await createAgentWorker({
      connection: environment.nativeConnection,
      taskQueue,
      store: await openTestStore(),
    });
    const folder = temporaryFolder('dar-visibility-');
    const toolTurns = Array.from({ length: 24 }, (_, index) => ({
      stopReason: 'toolUse' as const,
      content: [toolCall(`l${index}`, 'ls', {})],
    }));
    const model = scriptedModel(folder, [
      ...toolTurns,
      { stopReason: 'stop', content: [text('listed')] },
    ]);
    const input: AgentJobInput = { prompt: 'list', model, workspace: folder, tools: ['ls'] };
    const job = await worker.runUntil(async () => {
      const started = await startJob(environment.client, input, { taskQueue });
      await started.handle.result();
      return started;
    });
    const published = await publishedPhaseAndTurns(job.handle);
    // 25 model calls: `running` and 0 set by the client at the start, the count at 10 and 20,
    // `done` with 25.
    expect(published).toEqual([
      { phase: undefined, turns: 10 },
      { phase: undefined, turns: 20 },
      { phase: 'done', turns: 25 },
    ]);
    const attributes = (await job.handle.describe()).typedSearchAttributes;
    expect(attributes.get(darTurnsKey)).toBe(25);
  } finally {
    await environment.teardown();
  }
}, 90_000);
