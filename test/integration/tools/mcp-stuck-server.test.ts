/**
 * An MCP server that stops answering must not take a worker's later calls with it: after an
 * aborted call (the activity was cancelled or timed out) the server is pinged, and one that does
 * not answer is stopped and started afresh for the next call. A server whose tool list never ends
 * fails the worker's start instead of listing for ever. A real stdio server process
 * (test/support/mcp-test-server.mjs) speaks the real protocol.
 */
import { fileURLToPath } from 'node:url';
import {
  MAXIMUM_TOOL_LIST_LENGTH,
  McpServerConnection,
  RESPONSIVE_MS,
} from '../../../src/tools/mcp/mcp-connection.js';

const serverScript = fileURLToPath(new URL('../../support/mcp-test-server.mjs', import.meta.url));
const opened: McpServerConnection[] = [];

function connect(env: Record<string, string> = {}): McpServerConnection {
  const connection = new McpServerConnection('test', {
    command: process.execPath,
    args: [serverScript],
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  opened.push(connection);
  return connection;
}

afterAll(async () => {
  await Promise.all(opened.map((connection) => connection.close()));
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function echoText(connection: McpServerConnection, text: string): Promise<string> {
  const result = await connection.callTool('echo', { text }, new AbortController().signal);
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

async function abortedCall(connection: McpServerConnection, tool: string): Promise<void> {
  const abort = new AbortController();
  const call = connection.callTool(tool, {}, abort.signal);
  setTimeout(() => abort.abort(new Error('cancelled by the test')), 300);
  await expect(call).rejects.toThrow();
}

test('a server stuck in a call is replaced: the next call runs on a new process', async () => {
  const connection = connect();
  const before = await echoText(connection, 'first');
  const stuckPid = connection.processId;
  expect(before).toBe(`first from ${stuckPid}`);

  await abortedCall(connection, 'freeze');
  const started = Date.now();
  const after = await echoText(connection, 'second');
  expect(connection.processId).not.toBe(stuckPid);
  expect(after).toBe(`second from ${connection.processId}`);
  // The ping's wait, a new process, and little else.
  expect(Date.now() - started).toBeLessThan(RESPONSIVE_MS + 10_000);
  // The stuck process is stopped, not left behind.
  const deadline = Date.now() + 15_000;
  while (stuckPid !== undefined && isAlive(stuckPid) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(stuckPid !== undefined && isAlive(stuckPid)).toBe(false);
}, 60_000);

test('a server that answers after an aborted call is kept', async () => {
  const connection = connect();
  await echoText(connection, 'first');
  const pid = connection.processId;
  await abortedCall(connection, 'sleep');
  expect(await echoText(connection, 'second')).toBe(`second from ${pid}`);
  expect(connection.processId).toBe(pid);
}, 60_000);

test('a tool list that repeats its cursor fails instead of listing for ever', async () => {
  const connection = connect({ MCP_TEST_REPEAT_CURSOR: '1' });
  await expect(connection.listTools()).rejects.toThrow(
    'MCP server test repeated a cursor of its tool list (page 2)',
  );
}, 60_000);

test('a tool list without end, of large pages, fails once it passes the size limit', async () => {
  const connection = connect({ MCP_TEST_HUGE_PAGES: '1' });
  await expect(connection.listTools()).rejects.toThrow(
    `MCP server test lists more than ${MAXIMUM_TOOL_LIST_LENGTH} characters of tools (page 4)`,
  );
}, 60_000);
