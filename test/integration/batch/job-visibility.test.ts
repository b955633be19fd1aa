import { findTemporalBinary } from '../../../src/server/temporal-binary.js';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { startJob } from '../../../src/client/job-client.js';
import { jobListQuery } from '../../../src/cli/list-filter.js';
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

/** Two model calls with a tool turn between: phases model, tools, model, done. */
function twoTurnJob(batchId: string): AgentJobInput {
  const folder = temporaryFolder('dar-visibility-');
  const model = scriptedModel(folder, [
    { stopReason: 'toolUse', content: [toolCall('l1', 'ls', {})] },
    { stopReason: 'stop', content: [text('listed')] },
  ]);
  return { prompt: 'list', model, workspace: folder, tools: ['ls'], batchId };
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
    expect(upserts).toHaveLength(5);
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

    await registerMissingSearchAttributes(environment.nativeConnection, 'default');
    const worker = await createAgentWorker({
      connection: environment.nativeConnection,
      taskQueue,
      store,
    });
    const phase = await worker.runUntil(async () => {
      const job = await startJob(environment.client, twoTurnJob('late'), { taskQueue });
      await job.handle.result();
      return (await job.handle.describe()).typedSearchAttributes.get(darPhaseKey);
    });
    expect(phase).toBe('done');
  } finally {
    await environment.teardown();
  }
}, 90_000);
