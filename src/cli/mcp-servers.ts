import { McpConfigError, readMcpConfigFile } from '../tools/mcp/mcp-config.js';
import { connectMcpServers, type McpServers } from '../tools/mcp/mcp-tools.js';
import { UsageError } from './usage-error.js';

/**
 * `dar worker` or `dar run` `--mcp-config FILE`, else `DAR_MCP_CONFIG`: connects to the file's MCP servers and
 * lists their tools; undefined when neither is set. A bad file is a usage error; a server that
 * cannot be reached fails the start.
 */
export async function connectConfiguredMcpServers(
  flag: string | undefined,
  command: string,
  environment: NodeJS.ProcessEnv = process.env,
): Promise<McpServers | undefined> {
  const path = flag ?? (environment.DAR_MCP_CONFIG?.trim() || undefined);
  if (path === undefined) return undefined;
  try {
    return await connectMcpServers(readMcpConfigFile(path));
  } catch (error) {
    if (error instanceof McpConfigError) throw new UsageError(`dar ${command}: ${error.message}`);
    throw error;
  }
}
