/**
 * Tools given to a worker, not bundled: a `defineTool` tool (TypeBox), one with a plain JSON
 * Schema, and Pi `AgentTool`s as Pi users write them. One real dev server, one worker running the
 * production workflow (built-in tools only in its bundle) with these tools, scripted models.
 */
import { join } from 'node:path';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Type } from '@sinclair/typebox';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { AgentJob } from '../../../src/client/job-client.js';
import { emptyUsage, textOf } from '../../../src/core/index.js';
import type { ModelProvider } from '../../../src/providers/model-provider.js';
import type { JobStore } from '../../../src/store/job-store.js';
import { defineTool } from '../../../src/tools/user/define-tool.js';
import { createAgentWorker } from '../../../src/worker/agent-worker.js';
import type { AgentWorker } from '../../../src/worker/agent-worker-group.js';
import {
  jobInput,
  openTestStore,
  scriptedModel,
  startTestJob,
  temporaryFolder,
  text,
  toolCall,
  uniqueName,
} from '../../support/agent-harness.js';
import { startDevServer } from '../../support/temporal-server.js';
import { resultText, toolResults } from './tool-results.js';
import { createEditTool } from '@mariozechner/pi-coding-agent';
import { fromPiAgentTool } from '../../../src/tools/user/pi-agent-tool.js';
import { countTool, greetTool, piToolLog, waitTool } from './pi-tools.js';
import type { SequencedLiveEvent } from '../../../src/live/live-events.js';

/** Appends its text to `notes.txt` in the workspace: proof that the body ran, and how often. */
const noteTool = defineTool({
  name: 'note',
  description: 'Appends a line to notes.txt.',
  parameters: Type.Object({ line: Type.String(), times: Type.Integer({ minimum: 1 }) }),
  async execute(args, context) {
    const file = join(context.workspace, 'notes.txt');
    for (let index = 0; index < args.times; index += 1) {
      writeFileSync(file, `${args.line}\n`, { flag: 'a' });
    }
    return { content: [{ type: 'text', text: `noted ${args.times} time(s)` }] };
  },
});

/**
 * Returns what JSON does not carry as it is: a Date, NaN, an undefined array item, a class
 * instance, in its details and usage. Appends a line to `stamps.txt` each time its body runs.
 */
const stampTool = defineTool({
  name: 'stamp',
  description: 'Stamps the time.',
  parameters: Type.Object({}),
  async execute(_args, context) {
    writeFileSync(join(context.workspace, 'stamps.txt'), 'ran\n', { flag: 'a' });
    return {
      content: [{ type: 'text', text: 'stamped' }],
      details: {
        at: new Date(Date.UTC(2026, 11, 6, 12, 0, 0)),
        ratio: Number.NaN,
        list: [1, undefined, 3],
        where: new URL('https://example.com/a'),
      },
      usage: { ...emptyUsage(), input: Number.POSITIVE_INFINITY },
    };
  },
});

/**
 * Forty tools of about 60 KB of description each: every one within the limit of one tool's
 * description, 2.4 MB together, past Temporal's payload limit if a job names them all.
 */
const bulkyTools = Array.from({ length: 40 }, (_, index) =>
  defineTool({
    name: `bulky_${index}`,
    description: `Tool ${index}. ${'Long documentation. '.repeat(3_000)}`,
    parameters: Type.Object({}),
    async execute() {
      return { content: [{ type: 'text', text: 'never run' }] };
    },
  }),
);

/** Parameters as plain JSON Schema (no TypeBox). */
const shoutTool = defineTool({
  name: 'shout',
  description: 'Upper-cases a text.',
  parameters: {
    type: 'object',
    properties: { text: { type: 'string' } },
    required: ['text'],
    additionalProperties: false,
  },
  async execute(args) {
    return { content: [{ type: 'text', text: String(args.text).toUpperCase() }] };
  },
});

/**
 * A title of words separated by single spaces. JavaScript's backtracking engine takes
 * exponential time on this pattern for a long run of words that ends in a character it refuses.
 */
const TITLE_PATTERN = '^(\\w+\\s?)*$';
const titleTool = defineTool({
  name: 'title',
  description: 'Sets the title.',
  parameters: {
    type: 'object',
    properties: { text: { type: 'string', pattern: TITLE_PATTERN } },
    required: ['text'],
  },
  async execute(args) {
    return { content: [{ type: 'text', text: `title: ${String(args.text).slice(0, 20)}` }] };
  },
});

/**
 * A provider of the test's own: its first answer calls `shout` with the model id, the next
 * one says what the tool returned.
 */
function cannedProvider(modelId: string): ModelProvider {
  return {
    async call(request, context) {
      const base = {
        role: 'assistant' as const,
        api: 'canned',
        provider: 'canned',
        model: modelId,
        usage: emptyUsage(),
        timestamp: Date.now(),
      };
      if (context.callIndex === 0) {
        return {
          ...base,
          stopReason: 'toolUse',
          content: [toolCall('c1', 'shout', { text: modelId })],
        };
      }
      const last = request.messages.at(-1);
      const heard = last?.role === 'toolResult' ? textOf(last) : '?';
      return { ...base, stopReason: 'stop', content: [text(`heard ${heard}`)] };
    },
  };
}

const server = {
  taskQueue: uniqueName('user-tools'),
} as { environment: TestWorkflowEnvironment; taskQueue: string; store: JobStore };
let worker: AgentWorker | undefined;
/** Pi's own edit tool works in the folder it was made for. */
const piFolder = temporaryFolder('dar-pi-edit-');
let workerRun: Promise<void> | undefined;

beforeAll(async () => {
  server.environment = await startDevServer();
  server.store = await openTestStore();
  worker = await createAgentWorker({
    connection: server.environment.nativeConnection,
    taskQueue: server.taskQueue,
    store: server.store,
    tools: [
      noteTool,
      shoutTool,
      stampTool,
      titleTool,
      ...bulkyTools,
      greetTool,
      waitTool,
      countTool,
      // Published by Pi (@mariozechner/pi-coding-agent), renamed: `edit` is a built-in's name.
      fromPiAgentTool(createEditTool(piFolder), { name: 'pi_edit' }),
    ],
    providers: { canned: cannedProvider },
    workerOptions: { maxCachedWorkflows: 100 },
  });
  workerRun = worker.run();
  // Bundling the workflow code takes a while on a loaded machine.
}, 180_000);

afterAll(async () => {
  worker?.shutdown();
  await workerRun;
  await server.environment?.teardown();
  await server.store?.close();
});

async function waitFor(probe: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('a worker runs its own tools: TypeBox and JSON Schema parameters, coerced and checked in the preflight (R6-R8, R16)', async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [
    {
      stopReason: 'toolUse',
      content: [
        // "2" becomes 2 by coercion toward the schema (R8).
        toolCall('n1', 'note', { line: 'first', times: '2' }),
        toolCall('s1', 'shout', { text: 'quiet please' }),
        // Fails validation in the workflow: the body never sees it.
        toolCall('n2', 'note', { line: 'never', times: 0 }),
      ],
    },
    { stopReason: 'stop', content: [text('done')] },
  ]);
  const scriptPath = model.slice('scripted:'.length);
  mkdirSync(`${scriptPath}.requests`);
  const job = await startTestJob(
    server,
    jobInput({ model, workspace: folder, tools: ['read', 'note', 'shout'] }),
  );
  const { messages } = await job.result();
  const results = toolResults(messages);
  expect(results.map((result) => [result.toolCallId, result.isError])).toEqual([
    ['n1', false],
    ['s1', false],
    ['n2', true],
  ]);
  expect(resultText(results[0])).toBe('noted 2 time(s)');
  expect(resultText(results[1])).toBe('QUIET PLEASE');
  expect(resultText(results[2])).toMatch(
    /Validation failed for tool "note":\n {2}- times: must be >= 1/,
  );
  expect(readFileSync(join(folder, 'notes.txt'), 'utf8')).toBe('first\nfirst\n');
  // The model was offered the job's tools, the worker's with their JSON Schemas.
  const request = JSON.parse(readFileSync(join(`${scriptPath}.requests`, '0.json'), 'utf8')) as {
    tools: Array<{ name: string; parameters: unknown }>;
  };
  expect(request.tools.map((tool) => tool.name)).toEqual(['read', 'note', 'shout']);
  expect(request.tools[2]?.parameters).toEqual(shoutTool.spec.parameters);
});

test('R8: a schema pattern meets a long argument the model chose: the preflight answers in linear time and the job goes on', async () => {
  const folder = temporaryFolder();
  const words = 'word '.repeat(8_000);
  const model = scriptedModel(folder, [
    {
      stopReason: 'toolUse',
      content: [
        toolCall('t1', 'title', { text: `${words}!` }),
        toolCall('t2', 'title', { text: words }),
      ],
    },
    { stopReason: 'stop', content: [text('titled')] },
  ]);
  const job = await startTestJob(server, jobInput({ model, workspace: folder, tools: ['title'] }));
  const { messages } = await job.result();
  const results = toolResults(messages);
  expect(results.map((result) => [result.toolCallId, result.isError])).toEqual([
    ['t1', true],
    ['t2', false],
  ]);
  expect(resultText(results[0])).toContain(`text: must match pattern "${TITLE_PATTERN}"`);
  expect(resultText(results[1])).toBe('title: word word word word ');
  // No workflow task failed on the way (a backtracking match would pass the deadlock limit).
  const history = await job.handle.fetchHistory();
  const failedTasks = (history.events ?? []).filter(
    (event) => event.workflowTaskFailedEventAttributes,
  );
  expect(failedTasks).toEqual([]);
}, 120_000);

test('R16: a result JSON does not carry as it is (a Date, NaN, a class instance) is stored as JSON carries it; the call succeeds and its body runs once', async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [
    { stopReason: 'toolUse', content: [toolCall('st1', 'stamp', {})] },
    { stopReason: 'stop', content: [text('stamped')] },
  ]);
  const job = await startTestJob(server, jobInput({ model, workspace: folder, tools: ['stamp'] }));
  const { messages } = await job.result();
  const [result] = toolResults(messages);
  expect(result?.isError).toBe(false);
  expect(resultText(result)).toBe('stamped');
  expect(result?.details).toEqual({
    at: '2026-12-06T12:00:00.000Z',
    ratio: null,
    list: [1, null, 3],
    where: 'https://example.com/a',
  });
  expect(result?.usage?.input).toBeNull();
  // The body ran once: the model was not told the call failed, and nothing ran it again.
  expect(readFileSync(join(folder, 'stamps.txt'), 'utf8')).toBe('ran\n');
});

test("a job naming worker tools whose descriptions together pass the job's limit fails at once as BadInput, saying so", async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [{ stopReason: 'stop', content: [text('never')] }]);
  const job = await startTestJob(
    server,
    jobInput({ model, workspace: folder, tools: bulkyTools.map((tool) => tool.spec.name) }),
  );
  const error: unknown = await job.handle.result().then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(WorkflowFailedError);
  const cause = (error as WorkflowFailedError).cause;
  expect((cause as ApplicationFailure).type).toBe('BadInput');
  expect(cause?.message).toMatch(
    /^The job's 40 worker tools are described in \d+ characters of JSON together, over the limit of 1048576/,
  );
});

test("a job whose system prompt and worker tools would not fit together in the first model call's input fails at once as BadInput, naming both", async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [{ stopReason: 'stop', content: [text('never')] }]);
  // Each within its own limit: ten tools of about 60 KB (under 1 MiB together) and a system
  // prompt of 1.6 MB (under the job input's 2 MB). Together, over 2 MB in one activity input.
  const tools = bulkyTools.slice(0, 10).map((tool) => tool.spec.name);
  const job = await startTestJob(
    server,
    jobInput({ model, workspace: folder, tools, systemPrompt: 'p'.repeat(1_600_000) }),
  );
  const error: unknown = await Promise.race([
    job.handle.result().then(
      () => undefined,
      (failure: unknown) => failure,
    ),
    new Promise((resolve) => setTimeout(() => resolve('still running after 30 s'), 30_000)),
  ]);
  expect(error).toBeInstanceOf(WorkflowFailedError);
  const cause = (error as WorkflowFailedError).cause;
  expect((cause as ApplicationFailure).type).toBe('BadInput');
  expect(cause?.message).toMatch(
    /^The job's system prompt \(1600002 bytes as JSON\) and its 10 worker tools' descriptions \(\d+ bytes\) together pass the limit of 1572864 bytes/,
  );
}, 60_000);

test("a job's first workflow task taken by a workflow-only worker (a reader's, with no tools) moves to a worker that has them; the job does not fail", async () => {
  const taskQueue = uniqueName('user-tools-reader-first');
  const reader = await createAgentWorker({
    connection: server.environment.nativeConnection,
    taskQueue,
    store: server.store,
    workflowsOnly: true,
  });
  const readerRun = reader.run();
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [
    { stopReason: 'toolUse', content: [toolCall('n1', 'note', { line: 'moved', times: 1 })] },
    { stopReason: 'stop', content: [text('done')] },
  ]);
  const job = await startTestJob(
    { ...server, taskQueue },
    jobInput({ model, workspace: folder, tools: ['note'] }),
  );
  // The reader took the first task and could not describe the job's tool.
  await waitFor(async () => {
    const { events } = await job.handle.fetchHistory();
    return (events ?? []).some((event) => event.workflowTaskFailedEventAttributes);
  }, 'the reader to give the task back');
  reader.shutdown();
  await readerRun;

  const withTools = await createAgentWorker({
    connection: server.environment.nativeConnection,
    taskQueue,
    store: server.store,
    tools: [noteTool],
  });
  const { messages } = await withTools.runUntil(job.result());
  expect(toolResults(messages).map((result) => [result.toolCallId, result.isError])).toEqual([
    ['n1', false],
  ]);
  expect(readFileSync(join(folder, 'notes.txt'), 'utf8')).toBe('moved\n');
}, 120_000);

test('a job naming a tool no worker knows fails at once as BadInput', async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [{ stopReason: 'stop', content: [text('never')] }]);
  const job = await startTestJob(
    server,
    jobInput({ model, workspace: folder, tools: ['note', 'teleport'] }),
  );
  const error: unknown = await job.handle.result().then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(WorkflowFailedError);
  const cause = (error as WorkflowFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  expect((cause as ApplicationFailure).type).toBe('BadInput');
  expect(cause?.message).toBe('Tool teleport is not known to this workflow or its worker');
});

test("a Pi tool's prepareArguments and executionMode are honoured; onUpdate keeps the call alive (R7, R13)", async () => {
  const folder = temporaryFolder();
  piToolLog.length = 0;
  const model = scriptedModel(folder, [
    {
      stopReason: 'toolUse',
      content: [
        toolCall('g1', 'greet', { who: 'Ada' }),
        toolCall('g2', 'greet', { name: 'Grace' }),
        toolCall('g3', 'greet', { who: 'nobody' }),
      ],
    },
    { stopReason: 'stop', content: [text('done')] },
  ]);
  const job = await startTestJob(
    server,
    jobInput({ model, workspace: folder, tools: ['greet'], toolExecution: 'parallel' }),
  );
  const results = toolResults((await job.result()).messages);
  expect(results.map(resultText)).toEqual([
    'Hello, Ada!',
    'Hello, Grace!',
    'greet needs somebody to greet',
  ]);
  expect(results.map((result) => result.isError)).toEqual([false, false, true]);
  expect(results[0]?.details).toEqual({ greeted: 'Ada' });
  // `executionMode: 'sequential'` makes the batch run one call at a time, though the job says parallel.
  expect(piToolLog).toEqual(['start g1', 'end g1', 'start g2', 'end g2']);
});

test("a Pi tool's onUpdate reaches the job's live stream as tool_execution_update (its result so far), before the call's end; a late update is ignored", async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [
    { stopReason: 'toolUse', content: [toolCall('c1', 'count', { to: 4 })] },
    // Time for the late update to be sent, were it not ignored.
    { stopReason: 'stop', content: [text('done')], delayMs: 500 },
  ]);
  const job = await startTestJob(server, jobInput({ model, workspace: folder, tools: ['count'] }));
  const seen: (string | SequencedLiveEvent)[] = [];
  await job.follow((event) => void seen.push(event.type), {
    live: { onLive: (event) => void seen.push(event) },
  });
  const updates = seen.filter(
    (item): item is Extract<SequencedLiveEvent, { type: 'tool_execution_update' }> =>
      typeof item !== 'string' && item.type === 'tool_execution_update',
  );
  expect(updates.length).toBeGreaterThan(0);
  for (const update of updates) {
    expect(update).toMatchObject({ toolCallId: 'c1', toolName: 'count', whole: true, attempt: 1 });
  }
  const texts = updates.map((update) => update.partialResult.content[0]?.text ?? '');
  // Each is the result so far: later ones extend earlier ones, the last is the whole count.
  expect(texts.at(-1)).toBe('n1 n2 n3 n4');
  for (const [index, textSoFar] of texts.entries()) {
    expect(textSoFar.startsWith(texts[index - 1] ?? '')).toBe(true);
  }
  expect(texts).not.toContain('late update');
  // All before the call's end event.
  const lastUpdate = seen.lastIndexOf(updates.at(-1) as SequencedLiveEvent);
  expect(lastUpdate).toBeLessThan(seen.indexOf('tool_execution_end'));
});

test("cancelling the job aborts a Pi tool's signal; the call ends as Operation aborted (R21)", async () => {
  const folder = temporaryFolder();
  piToolLog.length = 0;
  const model = scriptedModel(folder, [
    { stopReason: 'toolUse', content: [toolCall('w1', 'wait', { seconds: 60 })] },
    { stopReason: 'stop', content: [text('never')] },
  ]);
  const job: AgentJob = await startTestJob(
    server,
    jobInput({ model, workspace: folder, tools: ['wait'] }),
  );
  await waitFor(() => piToolLog.includes('waiting w1'), 'the wait tool to start');
  await job.cancel();
  await expect(job.handle.result()).rejects.toThrow();
  await waitFor(() => piToolLog.includes('aborted w1'), "the tool's signal to abort");
  await waitFor(
    async () => toolResults(await job.transcript()).length === 1,
    'the transcript to hold the aborted result',
  );
  const [aborted] = toolResults(await job.transcript());
  expect(aborted).toMatchObject({ toolCallId: 'w1', isError: true });
  expect(resultText(aborted)).toBe('Operation aborted');
});

test("a tool published by Pi (pi-coding-agent's edit) runs unchanged, its legacy-argument shim included", async () => {
  const folder = temporaryFolder();
  writeFileSync(join(piFolder, 'poem.txt'), 'roses are red\nviolets are blue\n');
  const model = scriptedModel(folder, [
    {
      stopReason: 'toolUse',
      content: [
        // Pi's shim lifts the legacy top-level oldText/newText into edits[].
        toolCall('e1', 'pi_edit', { path: 'poem.txt', oldText: 'blue', newText: 'green' }),
      ],
    },
    { stopReason: 'stop', content: [text('done')] },
  ]);
  const job = await startTestJob(
    server,
    jobInput({ model, workspace: folder, tools: ['pi_edit'] }),
  );
  const [edited] = toolResults((await job.result()).messages);
  expect(edited).toMatchObject({ toolCallId: 'e1', isError: false });
  expect(readFileSync(join(piFolder, 'poem.txt'), 'utf8')).toBe(
    'roses are red\nviolets are green\n',
  );
});

test('a worker given its own model provider runs jobs that name it (provider:model-id)', async () => {
  const folder = temporaryFolder();
  const job = await startTestJob(
    server,
    jobInput({ model: 'canned:hello there', workspace: folder, tools: ['shout'] }),
  );
  const { messages } = await job.result();
  const last = messages.at(-1);
  expect(last?.role === 'assistant' ? textOf(last) : '').toBe('heard HELLO THERE');
});
