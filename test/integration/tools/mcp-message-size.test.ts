/**
 * A message from an MCP server is bounded (MAXIMUM_MCP_MESSAGE_BYTES, 10 MiB) on both
 * transports: a runaway result fails its call with an error naming the limit, the worker's
 * memory is not filled with it, and the next call works on a new connection. A real server
 * process (test/support/mcp-test-server.mjs, the SDK's server side) over stdio, and over
 * streamable HTTP answering in event streams and in JSON.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { MAXIMUM_MCP_MESSAGE_BYTES } from '../../../src/tools/mcp/bounded-fetch.js';
import { McpServerConnection } from '../../../src/tools/mcp/mcp-connection.js';
import { freePort } from '../../support/free-port.js';

const serverScript = fileURLToPath(new URL('../../support/mcp-test-server.mjs', import.meta.url));
const opened: McpServerConnection[] = [];
const httpServers: ChildProcess[] = [];

afterAll(async () => {
  await Promise.all(opened.map((connection) => connection.close()));
  for (const child of httpServers) child.kill('SIGKILL');
});

/** Starts the test server over HTTP; its URL once it listens. */
async function startHttpServer(json: boolean): Promise<string> {
  const port = await freePort();
  const child = spawn(process.execPath, [serverScript, 'http'], {
    env: {
      PATH: process.env.PATH ?? '',
      MCP_TEST_PORT: String(port),
      MCP_TEST_JSON: json ? '1' : '0',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  httpServers.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('listening')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the MCP test server exited (${code})`)));
  });
  return `http://127.0.0.1:${port}/mcp`;
}

async function textOf(
  connection: McpServerConnection,
  tool: string,
  args: object,
): Promise<string> {
  const result = await connection.callTool(tool, { ...args }, new AbortController().signal);
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

const OVER_THE_LIMIT = MAXIMUM_MCP_MESSAGE_BYTES + 1024 * 1024;
const UNDER_THE_LIMIT = MAXIMUM_MCP_MESSAGE_BYTES - 64 * 1024;

const transports: Array<[string, () => Promise<McpServerConnection>]> = [
  [
    'stdio',
    () =>
      Promise.resolve(
        new McpServerConnection('test', {
          command: process.execPath,
          args: [serverScript],
          env: { PATH: process.env.PATH ?? '' },
        }),
      ),
  ],
  [
    'HTTP, event streams',
    async () => new McpServerConnection('test', { url: await startHttpServer(false) }),
  ],
  [
    'HTTP, JSON answers',
    async () => new McpServerConnection('test', { url: await startHttpServer(true) }),
  ],
];

describe.each(transports)('%s', (_name, connect) => {
  let connection: McpServerConnection;

  beforeAll(async () => {
    connection = await connect();
    opened.push(connection);
  });

  test('an answer just under the limit comes through whole', async () => {
    expect((await textOf(connection, 'flood', { bytes: UNDER_THE_LIMIT })).length).toBe(
      UNDER_THE_LIMIT,
    );
  });

  test('an answer over the limit fails its call naming the limit; the next call works', async () => {
    const started = Date.now();
    await expect(textOf(connection, 'flood', { bytes: OVER_THE_LIMIT })).rejects.toThrow(
      'MCP server test sent a message over 10 MiB: its answer was not read',
    );
    // At once: the call does not wait for its timeout (10 minutes).
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(await textOf(connection, 'echo', { text: 'still here' })).toMatch(
      /^still here from \d+$/,
    );
  });
});
