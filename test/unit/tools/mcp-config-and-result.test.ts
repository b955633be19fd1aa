/** MCP configuration checks and the mapping of MCP tool results (R16). */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  McpConfigError,
  parseMcpConfig,
  readMcpConfigFile,
} from '../../../src/tools/mcp/mcp-config.js';
import { McpToolError, toToolExecutionResult } from '../../../src/tools/mcp/mcp-result.js';
import { mcpToolName } from '../../../src/tools/mcp/mcp-tools.js';

describe('MCP configuration', () => {
  test('takes stdio and HTTP servers; a relative cwd is the file’s folder', () => {
    const folder = mkdtempSync(join(tmpdir(), 'dar-mcp-config-'));
    const path = join(folder, 'mcp.json');
    writeFileSync(
      path,
      JSON.stringify({
        servers: {
          fs: { command: 'node', args: ['server.js', '.'], cwd: 'sub', env: { A: '1' } },
          search: {
            url: 'http://127.0.0.1:9/mcp',
            headers: { Authorization: 'Bearer x' },
            replaySafe: ['lookup'],
          },
        },
      }),
    );
    expect(readMcpConfigFile(path)).toEqual({
      servers: {
        fs: {
          command: 'node',
          args: ['server.js', '.'],
          cwd: join(folder, 'sub'),
          env: { A: '1' },
        },
        search: {
          url: 'http://127.0.0.1:9/mcp',
          headers: { Authorization: 'Bearer x' },
          replaySafe: ['lookup'],
        },
      },
    });
  });

  test('takes the servers under "mcpServers" too, with the "type" other tools write', () => {
    const config = {
      mcpServers: {
        fs: { type: 'stdio', command: 'node', args: ['server.js'] },
        search: { type: 'http', url: 'http://127.0.0.1:9/mcp' },
      },
    };
    expect(parseMcpConfig(config)).toEqual({
      servers: {
        fs: { command: 'node', args: ['server.js'] },
        search: { url: 'http://127.0.0.1:9/mcp' },
      },
    });
  });

  test.each([
    [{}, /"servers" \(or "mcpServers"\)/],
    [{ servers: {}, mcpServers: {} }, /under "servers" or "mcpServers", not both/],
    [{ mcpServers: { old: { type: 'sse', url: 'http://127.0.0.1:9/sse' } } }, /SSE transport/],
    [
      { servers: { fs: { type: 'http', command: 'x' } } },
      /type "http" does not go with a "command"/,
    ],
    [
      { servers: { web: { type: 'stdio', url: 'http://h/' } } },
      /type "stdio" does not go with a "url"/,
    ],
    [{ servers: { fs: { type: 7, command: 'x' } } }, /type must be a string/],
    [{ servers: { fs: {} } }, /needs a "command" \(stdio\) or a "url"/],
    [{ servers: { 'a b': { command: 'x' } } }, /a name has 1 to 64 letters/],
    [{ servers: { fs: { command: 'x', args: [1] } } }, /args must be an array of strings/],
    [{ servers: { web: { url: 'not a url' } } }, /is not a URL/],
    [{ servers: { fs: { command: 'x', env: { A: 1 } } } }, /env must be an object of strings/],
    [{ servers: { fs: { command: 'x', replaySafe: 'read' } } }, /replaySafe must be an array/],
  ])('refuses %j', (value, message) => {
    expect(() => parseMcpConfig(value)).toThrow(McpConfigError);
    expect(() => parseMcpConfig(value)).toThrow(message);
  });

  test('a file that is not JSON is refused with its path', () => {
    const folder = mkdtempSync(join(tmpdir(), 'dar-mcp-config-'));
    const path = join(folder, 'mcp.json');
    writeFileSync(path, '{ servers');
    expect(() => readMcpConfigFile(path)).toThrow(`MCP configuration ${path} is not JSON`);
  });
});

describe('MCP tool results', () => {
  test('text as it is, images as notes, structured content as details', () => {
    expect(
      toToolExecutionResult({
        content: [
          { type: 'text', text: 'hello' },
          { type: 'image', mimeType: 'image/png', data: 'AAAA' },
        ],
        structuredContent: { answer: 42 },
      }),
    ).toEqual({
      content: [
        { type: 'text', text: 'hello' },
        { type: 'text', text: '[image image/png, 3 bytes, not shown]' },
      ],
      details: { answer: 42 },
    });
  });

  test('only structured content becomes its JSON text', () => {
    expect(toToolExecutionResult({ content: [], structuredContent: { a: 1 } }).content).toEqual([
      { type: 'text', text: '{"a":1}' },
    ]);
  });

  test('isError is thrown with the server’s text (R16)', () => {
    expect(() =>
      toToolExecutionResult({ content: [{ type: 'text', text: 'no such file' }], isError: true }),
    ).toThrow(new McpToolError('no such file'));
  });

  test('tool names are namespaced and made safe for model APIs', () => {
    expect(mcpToolName('fs', 'read_file')).toBe('fs__read_file');
    expect(mcpToolName('web', 'search.v2 now')).toBe('web__search_v2_now');
  });
});
