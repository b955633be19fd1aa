/**
 * MCP servers as tools: the reference filesystem server published on npm
 * (@modelcontextprotocol/server-filesystem, a pinned devDependency), started by this test over
 * stdio with node. One real dev server, one worker given the server's tools, scripted models.
 */
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { JobStore } from '../../../src/store/job-store.js';
import { connectMcpServers, type McpServers } from '../../../src/tools/mcp/mcp-tools.js';
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

const serverScript = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-filesystem/dist/index.js',
);

const server = {
  taskQueue: uniqueName('mcp-tools'),
} as { environment: TestWorkflowEnvironment; taskQueue: string; store: JobStore };
/** The only folder the filesystem server may touch; jobs work in it too. */
const allowed = temporaryFolder('dar-mcp-');
let mcp: McpServers | undefined;
let worker: AgentWorker | undefined;
let workerRun: Promise<void> | undefined;

beforeAll(async () => {
  server.environment = await startDevServer();
  server.store = await openTestStore();
  mcp = await connectMcpServers({
    servers: { fs: { command: process.execPath, args: [serverScript, allowed] } },
  });
  worker = await createAgentWorker({
    connection: server.environment.nativeConnection,
    taskQueue: server.taskQueue,
    store: server.store,
    tools: mcp.tools,
    workerOptions: { maxCachedWorkflows: 100 },
  });
  workerRun = worker.run();
}, 180_000);

afterAll(async () => {
  worker?.shutdown();
  await workerRun;
  await mcp?.close();
  await server.environment?.teardown();
  await server.store?.close();
});

async function waitFor(probe: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function connection() {
  const found = mcp?.connections.get('fs');
  if (!found) throw new Error('no fs connection');
  return found;
}

test('a worker lists an MCP server’s tools as server__tool, with their JSON Schemas', () => {
  const names = mcp?.tools.map((tool) => tool.spec.name) ?? [];
  expect(names).toEqual(expect.arrayContaining(['fs__read_text_file', 'fs__write_file']));
  const read = mcp?.tools.find((tool) => tool.spec.name === 'fs__read_text_file');
  expect(read?.spec.parameters).toMatchObject({
    type: 'object',
    required: ['path'],
  });
  expect(read?.spec.replay).toBe('unsafe');
});

test('a job calls MCP tools: results come back, a bad argument is refused by the preflight, isError is an error result (R8, R16)', async () => {
  const file = join(allowed, 'greeting.txt');
  const model = scriptedModel(allowed, [
    {
      stopReason: 'toolUse',
      content: [toolCall('w1', 'fs__write_file', { path: file, content: 'hello from mcp' })],
    },
    {
      stopReason: 'toolUse',
      content: [
        toolCall('r1', 'fs__read_text_file', { path: file }),
        // No `path`: the schema says it is required, so the server never sees this call.
        toolCall('r2', 'fs__read_text_file', { head: 1 }),
        // Outside the server's allowed folder: the server answers with isError.
        toolCall('r3', 'fs__read_text_file', { path: '/etc/hostname' }),
      ],
    },
    { stopReason: 'stop', content: [text('done')] },
  ]);
  const job = await startTestJob(
    server,
    jobInput({
      model,
      workspace: allowed,
      tools: ['fs__write_file', 'fs__read_text_file'],
    }),
  );
  const { messages } = await job.result();
  const results = toolResults(messages);
  expect(results.map((result) => [result.toolCallId, result.isError])).toEqual([
    ['w1', false],
    ['r1', false],
    ['r2', true],
    ['r3', true],
  ]);
  // The write really happened, through the server.
  expect(readFileSync(file, 'utf8')).toBe('hello from mcp');
  expect(resultText(results[1])).toBe('hello from mcp');
  expect(resultText(results[2])).toMatch(/Validation failed for tool "fs__read_text_file"/);
  expect(resultText(results[2])).toMatch(/path/);
  expect(resultText(results[3])).toMatch(/Access denied/);
}, 120_000);

test('a stdio server killed between calls is started again on the next call', async () => {
  const file = join(allowed, 'after-restart.txt');
  writeFileSync(file, 'still here');
  const before = connection().processId;
  expect(before).toBeDefined();
  process.kill(before as number, 'SIGKILL');
  await waitFor(() => !connection().connected, 'the connection to notice the exit');

  const model = scriptedModel(allowed, [
    { stopReason: 'toolUse', content: [toolCall('r1', 'fs__read_text_file', { path: file })] },
    { stopReason: 'stop', content: [text('done')] },
  ]);
  const job = await startTestJob(
    server,
    jobInput({ model, workspace: allowed, tools: ['fs__read_text_file'] }),
  );
  const results = toolResults((await job.result()).messages);
  expect(results.map((result) => [result.isError, resultText(result)])).toEqual([
    [false, 'still here'],
  ]);
  const after = connection().processId;
  expect(after).toBeDefined();
  expect(after).not.toBe(before);
}, 120_000);
