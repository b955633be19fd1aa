import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { startConsoleServer, type ConsoleServer } from '../../src/console/console-server.js';
import type { AgentTestServer } from './agent-harness.js';

/**
 * For a test file: the operator console (`dar ui`'s server) over the test server's Temporal
 * and job store, started before its tests (after the server) and closed after them.
 */
export function useConsoleServer(server: AgentTestServer): { console: ConsoleServer } {
  const holder = {} as { console: ConsoleServer };
  beforeAll(async () => {
    holder.console = await startConsoleServer({
      client: server.environment.client,
      store: server.store,
    });
  });
  afterAll(async () => {
    await holder.console?.close();
  });
  return holder;
}

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One request to the console (node:http, so that any header, `Origin` too, can be sent). */
export function consoleRequest(
  consoleServer: ConsoleServer,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      new URL(path, consoleServer.url),
      { method: options.method ?? 'GET', headers: options.headers ?? {} },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
        );
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

/** The headers of a request signed in with the token, as a script would send them. */
export function bearer(consoleServer: ConsoleServer): Record<string, string> {
  return { Authorization: `Bearer ${consoleServer.token}` };
}

/** One Server-Sent Events message. */
export interface StreamMessage {
  id: string | undefined;
  event: string | undefined;
  data: string;
}

/**
 * Reads a Server-Sent Events stream until `done` says enough (or `timeoutMs` passes, which
 * rejects), then closes it. Returns the status, the headers and every message parsed so far.
 */
export function readEventStream(
  consoleServer: ConsoleServer,
  path: string,
  headers: Record<string, string>,
  done: (messages: StreamMessage[]) => boolean,
  timeoutMs = 20_000,
): Promise<{ status: number; headers: IncomingHttpHeaders; messages: StreamMessage[] }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(new URL(path, consoleServer.url), { headers }, (response) => {
      const messages: StreamMessage[] = [];
      let buffer = '';
      const timer = setTimeout(() => {
        request.destroy();
        reject(new Error(`stream not done in ${timeoutMs} ms; got ${JSON.stringify(messages)}`));
      }, timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        request.destroy();
        resolve({ status: response.statusCode ?? 0, headers: response.headers, messages });
      };
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const message: StreamMessage = { id: undefined, event: undefined, data: '' };
          let hasData = false;
          for (const line of frame.split('\n')) {
            const colon = line.indexOf(':');
            const field = colon === -1 ? line : line.slice(0, colon);
            const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'id') message.id = value;
            else if (field === 'event') message.event = value;
            else if (field === 'data') {
              message.data += hasData ? `\n${value}` : value;
              hasData = true;
            }
          }
          if (hasData) messages.push(message);
        }
        if (done(messages)) finish();
      });
      response.on('end', () => {
        if (response.statusCode !== 200) finish();
      });
    });
    request.on('error', (error) => {
      if (!request.destroyed) reject(error);
    });
    request.end();
  });
}
