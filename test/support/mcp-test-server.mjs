// A small MCP server over stdio for the connection's tests, a real process speaking the real
// protocol (the SDK's server side). Its tools: `echo` answers its text with this process's id;
// `sleep` answers after a minute, and takes its cancellation as a live server does; `freeze`
// never answers and blocks the process for good (a stuck server). With
// MCP_TEST_REPEAT_CURSOR=1 its tool list hands out the same cursor on every page.
import { setTimeout } from 'node:timers';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'dar-test', version: '1' }, { capabilities: { tools: {} } });
const repeatCursor = process.env.MCP_TEST_REPEAT_CURSOR === '1';
const textInput = { type: 'object', properties: { text: { type: 'string' } } };

server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    { name: 'echo', inputSchema: textInput },
    { name: 'sleep', inputSchema: { type: 'object' } },
    { name: 'freeze', inputSchema: { type: 'object' } },
  ],
  ...(repeatCursor ? { nextCursor: 'again' } : {}),
}));

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
  const text = String(request.params.arguments?.text ?? '');
  return { content: [{ type: 'text', text: `${text} from ${process.pid}` }] };
});

await server.connect(new StdioServerTransport());
