import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { TSchema } from '@sinclair/typebox';
import type { ToolImplementation } from '../tool-implementation.js';
import { McpConfigError, type McpConfig } from './mcp-config.js';
import { McpServerConnection } from './mcp-connection.js';
import { toToolExecutionResult } from './mcp-result.js';

/** The tools of a worker's MCP servers, with the connections that run them. */
export interface McpServers {
  /** Every server's tools, named `server__tool`, for `createAgentWorker({ tools })`. */
  tools: ToolImplementation[];
  /** One connection per server, by server name. */
  connections: ReadonlyMap<string, McpServerConnection>;
  /** Closes every connection (stdio servers are stopped). Call it after the worker stopped. */
  close(): Promise<void>;
}

/** `fs` and `read-file` give `fs__read-file`; characters a model API refuses in names become `_`. */
export function mcpToolName(server: string, tool: string): string {
  return `${server}__${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

/**
 * The tool's input schema as our preflight checks it: `$schema` is dropped (the validator knows
 * draft-07; MCP servers often name a newer draft for the same keywords).
 */
function parametersOf(tool: Tool): TSchema {
  const schema: Record<string, unknown> = { ...tool.inputSchema, type: 'object' };
  delete schema.$schema;
  return schema as unknown as TSchema;
}

function toolOf(connection: McpServerConnection, tool: Tool): ToolImplementation {
  const name = mcpToolName(connection.name, tool.name);
  return {
    spec: {
      name,
      label: tool.title ?? tool.annotations?.title ?? name,
      description:
        tool.description ?? tool.title ?? `${tool.name} of MCP server ${connection.name}`,
      parameters: parametersOf(tool),
      // The server's hints (`idempotentHint`) are not trusted: only the operator's word
      // (`replaySafe`) lets a call cut off by a crash run again.
      replay: connection.replaySafe.has(tool.name) ? 'safe' : 'unsafe',
    },
    async execute(args, context) {
      const result = await connection.callTool(
        tool.name,
        args as Record<string, unknown>,
        context.signal,
      );
      return toToolExecutionResult(result);
    },
  };
}

/**
 * Connects to every configured MCP server and lists its tools (at worker start; a server that
 * cannot be reached or listed fails this call). Each tool becomes a worker tool named
 * `server__tool` whose parameters are the server's JSON Schema (checked by the preflight before
 * any call) and whose body is a `tools/call` on the server's connection, cancelled with the
 * activity. The list is taken once: tools a server adds later are not offered. A `replaySafe` name
 * the server does not list fails this call (a typo would leave the tool unsafe unnoticed).
 */
export async function connectMcpServers(config: McpConfig): Promise<McpServers> {
  const connections = new Map<string, McpServerConnection>();
  const close = async () => {
    await Promise.all([...connections.values()].map((connection) => connection.close()));
  };
  const tools: ToolImplementation[] = [];
  try {
    for (const [name, server] of Object.entries(config.servers)) {
      const connection = new McpServerConnection(name, server);
      connections.set(name, connection);
      const listed = await connection.listTools();
      const unknown = [...connection.replaySafe].filter(
        (safe) => !listed.some((tool) => tool.name === safe),
      );
      if (unknown.length > 0) {
        throw new McpConfigError(
          `MCP server "${name}": replaySafe names tools the server does not list: ${unknown.join(', ')}`,
        );
      }
      for (const tool of listed) tools.push(toolOf(connection, tool));
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { tools, connections, close };
}
