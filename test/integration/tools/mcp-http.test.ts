/**
 * MCP servers over streamable HTTP: the "everything" server published on npm
 * (@modelcontextprotocol/server-everything, a pinned devDependency) run by this test as a real
 * HTTP server on 127.0.0.1. One real dev server, one worker with the server's tools, scripted
 * models. The worker keeps one session; when the server restarts (its sessions are gone), the
 * next call is sent on a new session; while the server is down a call is an error result.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { WorkflowFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { ToolResultMessage } from '../../../src/core/index.js';
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
import { freePort } from '../../support/free-port.js';
import { startDevServer } from '../../support/temporal-server.js';
import { resultText, toolResults } from './tool-results.js';

const serverScript = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-everything/dist/index.js',
);

const server = {
  taskQueue: uniqueName('mcp-http'),
} as { environment: TestWorkflowEnvironment; taskQueue: string; store: JobStore };
const workspace = temporaryFolder('dar-mcp-http-');
let port = 0;
let httpServer: ChildProcess | undefined;
let mcp: McpServers | undefined;
let worker: AgentWorker | undefined;
let workerRun: Promise<void> | undefined;

/** Starts the everything server on `port` and waits until it listens. */
function startHttpServer(): Promise<ChildProcess> {
  const child = spawn(process.execPath, [serverScript, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`no listen in 30 s:\n${stderr}`)), 30_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('listening on port')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the MCP server exited (${code}):\n${stderr}`));
    });
  });
}

async function stopHttpServer(): Promise<void> {
  const child = httpServer;
  httpServer = undefined;
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

beforeAll(async () => {
  port = await freePort();
  httpServer = await startHttpServer();
  server.environment = await startDevServer();
  server.store = await openTestStore();
  mcp = await connectMcpServers({
    servers: { web: { url: `http://127.0.0.1:${port}/mcp`, replaySafe: ['echo'] } },
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
  await stopHttpServer();
  await server.environment?.teardown();
  await server.store?.close();
});

/** Runs a job whose one turn echoes `message` through the HTTP server; its one tool result. */
async function echoJob(message: string): Promise<ToolResultMessage | undefined> {
  const model = scriptedModel(workspace, [
    { stopReason: 'toolUse', content: [toolCall('e1', 'web__echo', { message })] },
    { stopReason: 'stop', content: [text('done')] },
  ]);
  const job = await startTestJob(server, jobInput({ model, workspace, tools: ['web__echo'] }));
  const results = toolResults((await job.result()).messages);
  expect(results).toHaveLength(1);
  return results[0];
}

test('an HTTP server’s tools are listed as server__tool; replaySafe marks the named ones safe', () => {
  const echo = mcp?.tools.find((tool) => tool.spec.name === 'web__echo');
  expect(echo?.spec.parameters).toMatchObject({ type: 'object', required: ['message'] });
  expect(echo?.spec.replay).toBe('safe');
  const sum = mcp?.tools.find((tool) => tool.spec.name === 'web__get-sum');
  expect(sum?.spec.replay).toBe('unsafe');
});

test('a replaySafe name the server does not list fails the start', async () => {
  await expect(
    connectMcpServers({
      servers: { web: { url: `http://127.0.0.1:${port}/mcp`, replaySafe: ['no_such_tool'] } },
    }),
  ).rejects.toThrow(/replaySafe names tools the server does not list: no_such_tool/);
});

test('a job calls a tool over HTTP; after the server restarts, the next call goes on a new session', async () => {
  const first = await echoJob('before');
  expect([first?.isError, resultText(first)]).toEqual([false, 'Echo: before']);

  // Restarted between two calls: the server refuses the worker's old session, the tool did not
  // run, and the call is sent again on a new session.
  await stopHttpServer();
  httpServer = await startHttpServer();
  const restarted = await echoJob('after a restart');
  expect([restarted?.isError, resultText(restarted)]).toEqual([false, 'Echo: after a restart']);

  // Down: the call cannot be made, and says so.
  await stopHttpServer();
  const down = await echoJob('while down');
  expect(down?.isError).toBe(true);
  expect(resultText(down)).toMatch(/MCP server web cannot be reached \(.*ECONNREFUSED/);

  // Back: the next call connects again.
  httpServer = await startHttpServer();
  const after = await echoJob('after');
  expect([after?.isError, resultText(after)]).toEqual([false, 'Echo: after']);
}, 180_000);

test('R21: cancelling a job aborts its MCP call under way: the job closes long before the call would end', async () => {
  const model = scriptedModel(workspace, [
    {
      stopReason: 'toolUse',
      content: [
        toolCall('slow', 'web__trigger-long-running-operation', { duration: 60, steps: 60 }),
      ],
    },
    { stopReason: 'stop', content: [text('never')] },
  ]);
  const job = await startTestJob(
    server,
    jobInput({ model, workspace, tools: ['web__trigger-long-running-operation'] }),
  );
  const deadline = Date.now() + 30_000;
  while (!(await job.events(0)).some((event) => event.type === 'tool_execution_start')) {
    if (Date.now() > deadline) throw new Error('the MCP call never started');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // Under way on the server for a moment.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const cancelledAt = Date.now();
  await job.cancel();
  const failure: unknown = await job.handle.result().catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(WorkflowFailedError);
  expect(Date.now() - cancelledAt).toBeLessThan(30_000);
  const results = toolResults(await job.transcript());
  expect(results.map((result) => [result.toolCallId, result.isError, resultText(result)])).toEqual([
    ['slow', true, 'Operation aborted'],
  ]);
}, 120_000);
