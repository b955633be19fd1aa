import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  McpError,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import {
  MAXIMUM_MCP_MESSAGE_BYTES,
  McpMessageTooLargeError,
  boundedFetch,
  tooLargeMessage,
} from './bounded-fetch.js';
import { isHttpServer, type McpServerConfig } from './mcp-config.js';

const CLIENT_INFO = { name: 'durable-agent-runner', version: '1' };

/**
 * How long one tool call may take before the client gives up on it: a backstop only. The tool
 * activity's own start-to-close timeout (5 minutes unless the tool's spec says otherwise) aborts
 * the call first; the SDK's default of one minute would cut long tools short.
 */
const CALL_TIMEOUT_MS = 10 * 60_000;

/**
 * How long a server has to answer a ping after a call of it was aborted. A server that does not
 * is taken as stuck (a stdio server busy for good, an HTTP session that hangs): it is dropped,
 * and the next call connects again (a stdio server is started afresh).
 */
export const RESPONSIVE_MS = 5000;

/** Pages of `tools/list` read at most: a server that never ends its list fails the start. */
const MAXIMUM_TOOL_PAGES = 1000;

/**
 * Characters of JSON a server's tool list may take over all its pages (each page is bounded as
 * a message; a thousand of them are not). A worker holds every listed tool for its life, and a
 * job may offer only 1 MiB of worker tools' descriptions anyway.
 */
export const MAXIMUM_TOOL_LIST_LENGTH = 32 * 1024 * 1024;

/** A failure after which the connection cannot be trusted: the next call connects again. */
function isConnectionFailure(error: unknown): boolean {
  if (!(error instanceof McpError)) return true;
  const code: number = error.code;
  return (
    code === (ErrorCode.ConnectionClosed as number) || code === (ErrorCode.RequestTimeout as number)
  );
}

/**
 * An HTTP server's refusal of the request itself (its session is unknown: the server restarted or
 * expired it): the tool did not run, so the call may be sent again on a new session. A tool's own
 * failure comes back as a result, never as an HTTP status.
 */
function isLostSession(error: unknown): boolean {
  return error instanceof StreamableHTTPError && (error.code === 404 || error.code === 400);
}

/**
 * `fetch`'s failure to reach an HTTP server (a `TypeError`, checked by name: it may come from
 * another realm than this module's).
 */
function isFetchFailure(error: unknown): error is Error {
  return typeof error === 'object' && error !== null && (error as Error).name === 'TypeError';
}

/** An error's message with its cause's (`fetch failed: connect ECONNREFUSED 127.0.0.1:3001`). */
function describeFailure(error: Error): string {
  const cause: unknown = error.cause;
  const detail =
    typeof cause === 'object' && cause !== null ? (cause as { message?: unknown }).message : '';
  return typeof detail === 'string' && detail !== ''
    ? `${error.message}: ${detail}`
    : error.message;
}

/**
 * One worker's connection to one MCP server, made on first use and made again on the next use
 * after it was lost (the server process exited, the HTTP session expired, a transport error).
 * A call that was under way when the connection went fails; it is not sent again, because the
 * server may have run it. A call an HTTP server refused for its session (it restarted) did not
 * run: it is sent once more on a new session.
 */
export class McpServerConnection {
  private current: Promise<Client> | undefined;
  private transport: Transport | undefined;
  /** Why a connection was closed under a call: a message over the size limit. */
  private readonly oversized = new WeakMap<Client, McpMessageTooLargeError>();
  /** The check of a server after an aborted call; the next call waits for its verdict. */
  private checking: Promise<void> | undefined;
  private closed = false;
  /** The server's tools that may run again after a crash (its configured `replaySafe`). */
  readonly replaySafe: ReadonlySet<string>;

  constructor(
    readonly name: string,
    private readonly server: McpServerConfig,
  ) {
    this.replaySafe = new Set(server.replaySafe ?? []);
  }

  /** Whether a connection is open (or being opened) now. */
  get connected(): boolean {
    return this.current !== undefined;
  }

  /** The stdio server's process id while connected; undefined for HTTP servers. */
  get processId(): number | undefined {
    return this.transport instanceof StdioClientTransport
      ? (this.transport.pid ?? undefined)
      : undefined;
  }

  // Not async: the promise returned must be the one `forget` is given.
  private connect(): Promise<Client> {
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    // A message over the limit closes the connection, failing the calls waiting on it at once.
    const tooLarge = (error: McpMessageTooLargeError) => {
      if (!this.oversized.has(client)) this.oversized.set(client, error);
      void client.close().catch(() => undefined);
    };
    const transport: Transport = isHttpServer(this.server)
      ? new StreamableHTTPClientTransport(new URL(this.server.url), {
          requestInit: { headers: { ...this.server.headers } },
          fetch: boundedFetch(this.name, MAXIMUM_MCP_MESSAGE_BYTES, tooLarge),
        })
      : new StdioClientTransport({
          command: this.server.command,
          args: this.server.args ?? [],
          ...(this.server.env ? { env: this.server.env } : {}),
          ...(this.server.cwd ? { cwd: this.server.cwd } : {}),
          maxBufferSize: MAXIMUM_MCP_MESSAGE_BYTES,
        });
    // The SDK's stdio transport closes itself over the limit; only its error says why.
    client.onerror = (error) => {
      if (/exceeded maximum size/i.test(error.message)) {
        tooLarge(new McpMessageTooLargeError(tooLargeMessage(this.name)));
      }
    };
    const attempt = client.connect(transport).then(() => client);
    client.onclose = () => this.forget(attempt);
    this.transport = transport;
    return attempt;
  }

  /** Drops a connection that is gone, unless a newer one took its place already. */
  private forget(connection: Promise<Client>): void {
    if (this.current !== connection) return;
    this.current = undefined;
    this.transport = undefined;
  }

  /** The connected client, connecting first when there is no connection. */
  async client(): Promise<Client> {
    if (this.checking) await this.checking;
    if (this.closed) throw new Error(`MCP server ${this.name}: the connection was closed`);
    const connection = (this.current ??= this.connect());
    try {
      return await connection;
    } catch (error) {
      this.forget(connection);
      throw new Error(`MCP server ${this.name} cannot be reached (${(error as Error).message})`, {
        cause: error,
      });
    }
  }

  /** Every tool the server lists (all pages). */
  async listTools(): Promise<Tool[]> {
    const client = await this.client();
    try {
      return await this.listPages(client);
    } catch (error) {
      throw this.oversized.get(client) ?? error;
    }
  }

  private async listPages(client: Client): Promise<Tool[]> {
    const tools: Tool[] = [];
    const cursors = new Set<string>();
    let cursor: string | undefined;
    let listed = 0;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      listed += JSON.stringify(page.tools).length;
      if (listed > MAXIMUM_TOOL_LIST_LENGTH) {
        throw new Error(
          `MCP server ${this.name} lists more than ${MAXIMUM_TOOL_LIST_LENGTH} characters of ` +
            `tools (page ${cursors.size + 1})`,
        );
      }
      tools.push(...page.tools);
      cursor = page.nextCursor;
      if (cursor === undefined) break;
      // A cursor seen before would list the same pages for ever.
      if (cursors.has(cursor) || cursors.size + 1 >= MAXIMUM_TOOL_PAGES) {
        throw new Error(
          cursors.has(cursor)
            ? `MCP server ${this.name} repeated a cursor of its tool list (page ${cursors.size + 1})`
            : `MCP server ${this.name} lists more than ${MAXIMUM_TOOL_PAGES} pages of tools`,
        );
      }
      cursors.add(cursor);
    } while (cursor !== undefined);
    return tools;
  }

  /**
   * Calls a tool; `signal` cancels the request (the server is told with `notifications/cancelled`).
   * Rejects when the call cannot be made or its answer is lost; the server's own tool errors come
   * back as a result with `isError`.
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    try {
      try {
        return await this.callOnce(name, args, signal);
      } catch (error) {
        if (signal.aborted || !isLostSession(error)) throw error;
        return await this.callOnce(name, args, signal);
      }
    } catch (error) {
      if (signal.aborted || !isFetchFailure(error)) throw error;
      // `fetch failed` alone does not say which server or why.
      throw new Error(`MCP server ${this.name} cannot be reached (${describeFailure(error)})`, {
        cause: error,
      });
    }
  }

  private async callOnce(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    const client = await this.client();
    // The connection that gave this client, to forget if the call shows it is lost.
    const connection = this.current;
    try {
      return (await client.callTool({ name, arguments: args }, undefined, {
        signal,
        timeout: CALL_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
      })) as CallToolResult;
    } catch (error) {
      if (connection && signal.aborted) this.checkResponsive(client, connection);
      else if (connection && isConnectionFailure(error)) this.drop(client, connection);
      throw this.oversized.get(client) ?? error;
    }
  }

  /** Forgets a connection that cannot be trusted and closes it (a stdio server is stopped). */
  private drop(client: Client, connection: Promise<Client>): void {
    this.forget(connection);
    void client.close().catch(() => undefined);
  }

  /**
   * After an aborted call: the server is pinged, and dropped when it does not answer within
   * {@link RESPONSIVE_MS}. A stuck server would otherwise take every later call with it.
   */
  private checkResponsive(client: Client, connection: Promise<Client>): void {
    if (this.checking) return;
    const check = client
      .ping({ timeout: RESPONSIVE_MS })
      .then(
        () => undefined,
        () => this.drop(client, connection),
      )
      .finally(() => {
        if (this.checking === check) this.checking = undefined;
      });
    this.checking = check;
  }

  /** Closes the connection (a stdio server is stopped); later calls fail. */
  async close(): Promise<void> {
    this.closed = true;
    const connection = this.current;
    this.current = undefined;
    this.transport = undefined;
    if (connection) await (await connection.catch(() => undefined))?.close();
  }
}
