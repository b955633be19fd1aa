// A small MCP server over stdio for the connection's tests, a real process speaking the real
// protocol (the SDK's server side). Its tools: `echo` answers its text with this process's id;
// `sleep` answers after a minute, and takes its cancellation as a live server does; `freeze`
// never answers and blocks the process for good (a stuck server); `flood` answers a text of
// `bytes` bytes (a runaway result). With MCP_TEST_REPEAT_CURSOR=1 its tool list hands out the
// same cursor on every page; with MCP_TEST_HUGE_PAGES=1 it never ends, 8 MiB a page. With the argument `http` it serves streamable HTTP on 127.0.0.1 at
// MCP_TEST_PORT (path /mcp, no sessions), answering in event streams, or in JSON with
// MCP_TEST_JSON=1; it prints `listening` once it does.
import { createServer } from 'node:http';
import { setTimeout } from 'node:timers';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const repeatCursor = process.env.MCP_TEST_REPEAT_CURSOR === '1';
const hugePages = process.env.MCP_TEST_HUGE_PAGES === '1';
const textInput = { type: 'object', properties: { text: { type: 'string' } } };

function createMcpServer() {
  const server = new Server({ name: 'dar-test', version: '1' }, { capabilities: { tools: {} } });
  const listedTools = () => ({
    tools: [
      { name: 'echo', inputSchema: textInput },
      { name: 'sleep', inputSchema: { type: 'object' } },
      { name: 'freeze', inputSchema: { type: 'object' } },
      { name: 'flood', inputSchema: { type: 'object', properties: { bytes: { type: 'number' } } } },
    ],
    ...(repeatCursor ? { nextCursor: 'again' } : {}),
  });

  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    if (hugePages) {
      // A list without end, each page a tool with a description of 8 MiB.
      const page = Number(request.params?.cursor ?? 0);
      return {
        tools: [
          {
            name: `tool${page}`,
            description: 'd'.repeat(8 * 1024 * 1024),
            inputSchema: { type: 'object' },
          },
        ],
        nextCursor: String(page + 1),
      };
    }
    return listedTools();
  });

  server.setRequestHandler(CallToolRequestSchema, (request) => {
    if (request.params.name === 'freeze') {
      // Answer nothing, ever: not the cancellation, not a ping.
      setTimeout(() => {
        for (;;);
      }, 10);
      return new Promise(() => undefined);
    }
    if (request.params.name === 'sleep') {
      return new Promise((resolve) =>
        setTimeout(() => resolve({ content: [{ type: 'text', text: 'slept' }] }), 60_000).unref(),
      );
    }
    if (request.params.name === 'flood') {
      const bytes = Number(request.params.arguments?.bytes ?? 0);
      return { content: [{ type: 'text', text: 'x'.repeat(bytes) }] };
    }
    const text = String(request.params.arguments?.text ?? '');
    return { content: [{ type: 'text', text: `${text} from ${process.pid}` }] };
  });
  return server;
}

if (process.argv[2] === 'http') {
  const enableJsonResponse = process.env.MCP_TEST_JSON === '1';
  const http = createServer((request, response) => {
    // No sessions: a server and a transport for each request.
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse,
    });
    response.on('close', () => void transport.close());
    createMcpServer()
      .connect(transport)
      .then(() => transport.handleRequest(request, response))
      .catch((error) => {
        response.statusCode = 500;
        response.end(String(error));
      });
  });
  http.listen(Number(process.env.MCP_TEST_PORT), '127.0.0.1', () => console.log('listening'));
} else {
  await createMcpServer().connect(new StdioServerTransport());
}
