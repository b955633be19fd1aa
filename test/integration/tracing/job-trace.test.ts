import { Client } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { startJob } from '../../../src/client/job-client.js';
import { createAgentTracing } from '../../../src/tracing/agent-tracing.js';
import { SPAN_ATTRIBUTES } from '../../../src/tracing/agent-spans-interceptor.js';
import { createAgentWorker } from '../../../src/worker/agent-worker.js';
import {
  jobInput,
  openTestStore,
  scriptedModel,
  temporaryFolder,
  testWorkflowsPath,
  text,
  toolCall,
  uniqueName,
} from '../../support/agent-harness.js';
import { startDevServer } from '../../support/temporal-server.js';
import { waitFor } from '../../e2e/support/wait.js';

let environment: TestWorkflowEnvironment;
beforeAll(async () => {
  environment = await startDevServer();
});
afterAll(async () => {
  await environment?.teardown();
});

/** A finished job's spans, with lookups in their tree. */
interface JobSpans {
  workflowId: string;
  spans: ReadableSpan[];
  parentOf: (span: ReadableSpan) => ReadableSpan | undefined;
  /** The names of a span's ancestors, nearest first. */
  ancestors: (span: ReadableSpan) => string[];
  named: (name: string) => ReadableSpan[];
}

/**
 * Runs one job on a traced worker of its own (started through a traced client when
 * `tracedClient`) and returns every span it finished.
 */
async function spansOfJob(options: {
  model: string;
  workspace: string;
  tools?: string[];
  tracedClient?: boolean;
  worker: Pick<Parameters<typeof createAgentWorker>[0], 'modelPacing' | 'workerOptions'>;
}): Promise<JobSpans> {
  const exporter = new InMemorySpanExporter();
  const tracing = createAgentTracing({ spanProcessor: new SimpleSpanProcessor(exporter) });
  const store = await openTestStore();
  const taskQueue = uniqueName('tracing');
  const worker = await createAgentWorker({
    connection: environment.nativeConnection,
    taskQueue,
    workflowsPath: testWorkflowsPath,
    store,
    tracing,
    ...options.worker,
  });
  const client = options.tracedClient
    ? new Client({
        connection: environment.connection,
        interceptors: {
          workflow: [new OpenTelemetryWorkflowClientInterceptor({ tracer: tracing.tracer })],
        },
      })
    : environment.client;
  const { model, workspace, tools } = options;
  const workflowId = uniqueName('job');
  await worker.runUntil(async () => {
    const input = jobInput({ model, workspace, ...(tools ? { tools } : {}) });
    const job = await startJob(client, input, { taskQueue, workflowId, store });
    await job.result();
    // The workflow's spans leave through the sink after its last activation.
    await waitFor('the run span', () =>
      exporter.getFinishedSpans().some((span) => span.name === 'RunWorkflow:agentJob'),
    );
  });
  // (Shutting the exporter down empties it: the spans are taken first.)
  const spans = exporter.getFinishedSpans();
  await tracing.shutdown();
  await store.close();
  const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]));
  const parentOf = (span: ReadableSpan) =>
    span.parentSpanId === undefined ? undefined : byId.get(span.parentSpanId);
  const ancestors = (span: ReadableSpan): string[] => {
    const names: string[] = [];
    for (let parent = parentOf(span); parent; parent = parentOf(parent)) names.push(parent.name);
    return names;
  };
  const named = (name: string) => spans.filter((span) => span.name === name);
  return { workflowId, spans, parentOf, ancestors, named };
}

test('tracing: one trace per job, a span per turn holding its model call (model, tokens, cost) and tool calls (tool, outcome)', async () => {
  const workspace = temporaryFolder();
  const model = scriptedModel(workspace, [
    {
      stopReason: 'toolUse',
      content: [
        toolCall('w1', 'write', { path: 'a.txt', content: 'hello' }),
        toolCall('r1', 'read', { path: 'missing.txt' }),
      ],
      usage: { input: 100, output: 20, costUsd: 0.03 },
    },
    {
      stopReason: 'stop',
      content: [text('done')],
      usage: { input: 150, output: 5, costUsd: 0.04 },
    },
  ]);
  const { workflowId, spans, parentOf, ancestors, named } = await spansOfJob({
    model,
    workspace,
    tools: ['read', 'write'],
    tracedClient: true,
    worker: { workerOptions: { maxCachedWorkflows: 10 } },
  });

  // One trace: the client's start of the job is its root, every span is in it.
  const [root] = named('StartWorkflow:agentJob');
  expect(root).toBeDefined();
  expect(new Set(spans.map((span) => span.spanContext().traceId))).toEqual(
    new Set([root!.spanContext().traceId]),
  );
  expect(spans.filter((span) => !parentOf(span)).map((span) => span.name)).toEqual([
    'StartWorkflow:agentJob',
  ]);

  // A span per turn, under the workflow's run.
  const turns = spans.filter((span) => span.name.startsWith('turn '));
  expect(turns.map((span) => span.name).sort()).toEqual(['turn 1', 'turn 2']);
  for (const turn of turns) {
    expect(parentOf(turn)?.name).toBe('RunWorkflow:agentJob');
    expect(turn.attributes['dar.job_id']).toBe(workflowId);
  }

  // Model calls: in their turn, with model, tokens and cost.
  const modelCalls = named('model call').sort(
    (a, b) =>
      Number(a.attributes[SPAN_ATTRIBUTES.callIndex]) -
      Number(b.attributes[SPAN_ATTRIBUTES.callIndex]),
  );
  expect(modelCalls).toHaveLength(2);
  expect(
    modelCalls.map((span) => ancestors(span).find((name) => name.startsWith('turn '))),
  ).toEqual(['turn 1', 'turn 2']);
  expect(modelCalls[0]!.attributes).toMatchObject({
    [SPAN_ATTRIBUTES.model]: model,
    [SPAN_ATTRIBUTES.inputTokens]: 100,
    [SPAN_ATTRIBUTES.outputTokens]: 20,
    [SPAN_ATTRIBUTES.costUsd]: 0.03,
    [SPAN_ATTRIBUTES.jobId]: workflowId,
  });
  expect(modelCalls[1]!.attributes).toMatchObject({
    [SPAN_ATTRIBUTES.inputTokens]: 150,
    [SPAN_ATTRIBUTES.costUsd]: 0.04,
  });
  // The run's first call goes as `callModelUnlessPaced` (this worker paces no provider).
  expect(ancestors(modelCalls[0]!).slice(0, 2)).toEqual([
    'RunActivity:callModelUnlessPaced',
    'StartActivity:callModelUnlessPaced',
  ]);
  // The next with the run's stored setup (the built-in tools' schemas pass the threshold).
  expect(ancestors(modelCalls[1]!).slice(0, 2)).toEqual([
    'RunActivity:callModelOnStoredSetup',
    'StartActivity:callModelOnStoredSetup',
  ]);

  // Tool calls: in turn 1, with the tool and its outcome.
  const write = named('tool call write');
  const read = named('tool call read');
  expect(write).toHaveLength(1);
  expect(read).toHaveLength(1);
  expect(write[0]!.attributes).toMatchObject({
    [SPAN_ATTRIBUTES.tool]: 'write',
    [SPAN_ATTRIBUTES.toolOutcome]: 'ok',
  });
  expect(read[0]!.attributes).toMatchObject({
    [SPAN_ATTRIBUTES.tool]: 'read',
    [SPAN_ATTRIBUTES.toolOutcome]: 'failed',
  });
  for (const tool of [...write, ...read]) {
    expect(ancestors(tool)).toContain('turn 1');
    expect(ancestors(tool).at(-1)).toBe('StartWorkflow:agentJob');
  }
});

test('tracing: a paced provider, the first call left to its queue and made there, both in turn 1', async () => {
  const workspace = temporaryFolder();
  const model = scriptedModel(workspace, [{ stopReason: 'stop', content: [text('done')] }]);
  const { spans, ancestors, named } = await spansOfJob({
    model,
    workspace,
    worker: { modelPacing: { scripted: { concurrency: 2 } } },
  });
  const turnOf = (span: ReadableSpan) => ancestors(span).find((name) => name.startsWith('turn '));

  const left = named('model call left to pacing');
  const made = named('model call');
  expect(left).toHaveLength(1);
  expect(made).toHaveLength(1);
  // The call left to pacing has no answer; the one made has its usage.
  expect(left[0]!.attributes[SPAN_ATTRIBUTES.inputTokens]).toBeUndefined();
  expect(made[0]!.attributes[SPAN_ATTRIBUTES.inputTokens]).toBeDefined();
  expect(spans.filter((span) => span.name.startsWith('turn ')).map((span) => span.name)).toEqual([
    'turn 1',
  ]);
  expect([turnOf(left[0]!), turnOf(made[0]!)]).toEqual(['turn 1', 'turn 1']);
});
