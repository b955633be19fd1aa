import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** What every MCP server's entry may say, whatever its transport. */
export interface McpServerCommon {
  /**
   * The server's tools (by the server's own names) that may be run again after a crash: a call
   * cut off by a worker's death is sent again instead of being answered "interrupted" (see
   * Replay safety in the README). Name only tools that are harmless to repeat (reads, lookups);
   * the server's own `idempotentHint` is not trusted. Default: none.
   */
  replaySafe?: string[];
}

/** An MCP server the worker starts itself and talks to over its stdin and stdout. */
export interface McpStdioServer extends McpServerCommon {
  /** The program to run (looked up in `PATH`), e.g. `node` or `npx`. */
  command: string;
  args?: string[];
  /**
   * Added to the server's environment. The server does not inherit the worker's whole
   * environment: only `HOME`, `PATH`, `USER`, `SHELL`, `TERM` and `LOGNAME` (the SDK's default), so
   * that secrets of the worker do not leak to it unless named here.
   */
  env?: Record<string, string>;
  /** The server's working folder; default: the worker's. */
  cwd?: string;
}

/** An MCP server reached over streamable HTTP. */
export interface McpHttpServer extends McpServerCommon {
  url: string;
  /** Sent with every request (e.g. `Authorization`). */
  headers?: Record<string, string>;
}

export type McpServerConfig = McpStdioServer | McpHttpServer;

/**
 * The MCP servers of a worker, by name: `{ "servers": { "fs": { "command": "npx", "args": [...] },
 * "search": { "url": "http://..." } } }`. A server's tool `read` becomes the tool `fs__read`.
 */
export interface McpConfig {
  servers: Record<string, McpServerConfig>;
}

/** An MCP configuration that cannot be used (bad JSON, a missing command or URL, a bad name). */
export class McpConfigError extends Error {
  override name = 'McpConfigError';
}

/** A server name becomes part of tool names: letters, digits, `_` and `-` only. */
const SERVER_NAME = /^[A-Za-z0-9_-]{1,64}$/;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringRecord(value: unknown, what: string): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value) || !Object.values(value).every((entry) => typeof entry === 'string')) {
    throw new McpConfigError(`${what} must be an object of strings`);
  }
  return value as Record<string, string>;
}

function stringList(value: unknown, what: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((entry) => typeof entry === 'string')) {
    throw new McpConfigError(`${what} must be an array of strings`);
  }
  return value;
}

function parseServer(name: string, value: unknown, baseFolder: string): McpServerConfig {
  const where = `MCP server "${name}"`;
  if (!SERVER_NAME.test(name)) {
    throw new McpConfigError(`${where}: a name has 1 to 64 letters, digits, "_" or "-"`);
  }
  if (!isObject(value)) throw new McpConfigError(`${where} must be an object`);
  const replaySafe = stringList(value.replaySafe, `${where}: replaySafe`);
  return { ...parseTransport(where, value, baseFolder), ...(replaySafe ? { replaySafe } : {}) };
}

/**
 * The `type` other tools' configuration files write (Claude Code, VS Code): `stdio` and `http`
 * name the transports this worker speaks; `sse`, the older HTTP transport, it does not.
 */
function checkType(where: string, value: Record<string, unknown>): void {
  const type = value.type;
  if (type === undefined) return;
  if (type === 'sse') {
    throw new McpConfigError(
      `${where}: the SSE transport is not supported; give the server's streamable HTTP "url" ` +
        '(most servers serve both) or a stdio "command"',
    );
  }
  if (typeof type !== 'string') throw new McpConfigError(`${where}: type must be a string`);
  const byUrl = typeof value.url === 'string';
  const expected = byUrl ? ['http', 'streamable-http'] : ['stdio'];
  if (!expected.includes(type)) {
    throw new McpConfigError(
      `${where}: type "${type.slice(0, 40)}" does not go with a ${byUrl ? '"url"' : '"command"'} ` +
        `(${expected.join(' or ')})`,
    );
  }
}

function parseTransport(
  where: string,
  value: Record<string, unknown>,
  baseFolder: string,
): McpServerConfig {
  checkType(where, value);
  if (typeof value.url === 'string') {
    try {
      new URL(value.url);
    } catch {
      throw new McpConfigError(`${where}: url "${value.url}" is not a URL`);
    }
    const headers = stringRecord(value.headers, `${where}: headers`);
    return { url: value.url, ...(headers ? { headers } : {}) };
  }
  if (typeof value.command !== 'string' || value.command === '') {
    throw new McpConfigError(`${where} needs a "command" (stdio) or a "url" (streamable HTTP)`);
  }
  const args = stringList(value.args, `${where}: args`) ?? [];
  const env = stringRecord(value.env, `${where}: env`);
  if (value.cwd !== undefined && typeof value.cwd !== 'string') {
    throw new McpConfigError(`${where}: cwd must be a string`);
  }
  return {
    command: value.command,
    args,
    ...(env ? { env } : {}),
    // A relative cwd is the config file's (or the worker's) folder.
    ...(value.cwd !== undefined ? { cwd: resolve(baseFolder, value.cwd) } : {}),
  };
}

/**
 * The servers of a configuration: under `servers` (VS Code's name, and this runner's), or
 * under `mcpServers` (Claude Desktop's, Claude Code's and Cursor's), so that their files work
 * as they are.
 */
function serversOf(value: unknown): Record<string, unknown> {
  if (isObject(value) && value.servers !== undefined && value.mcpServers !== undefined) {
    throw new McpConfigError(
      'An MCP configuration names its servers once: under "servers" or "mcpServers", not both',
    );
  }
  const servers = isObject(value) ? (value.servers ?? value.mcpServers) : undefined;
  if (!isObject(servers)) {
    throw new McpConfigError(
      'An MCP configuration is an object with "servers" (or "mcpServers"): { name: server }',
    );
  }
  return servers;
}

/** Checks a configuration given as a value (parsed JSON); relative `cwd`s resolve against `baseFolder`. */
export function parseMcpConfig(value: unknown, baseFolder = process.cwd()): McpConfig {
  const servers: Record<string, McpServerConfig> = {};
  for (const [name, server] of Object.entries(serversOf(value))) {
    servers[name] = parseServer(name, server, baseFolder);
  }
  return { servers };
}

/** Reads and checks an MCP configuration file (JSON, see {@link McpConfig}). */
export function readMcpConfigFile(path: string): McpConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new McpConfigError(
      `MCP configuration ${path} cannot be read (${(error as Error).message})`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new McpConfigError(`MCP configuration ${path} is not JSON (${(error as Error).message})`);
  }
  return parseMcpConfig(value, dirname(resolve(path)));
}

export function isHttpServer(server: McpServerConfig): server is McpHttpServer {
  return 'url' in server;
}
