import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import type { JobStore } from '../store/job-store.js';
import { cachedReader } from '../transcript/cached-reader.js';
import { AccessGuard } from './access-guard.js';
import { generateToken } from './access-token.js';
import { HttpError, SECURITY_HEADERS, sendError } from './http-responses.js';
import { hostInUrl } from './loopback-host.js';
import { consoleRoutes } from './routes/index.js';
import { matchPath, type AskJob, type ConsoleServices, type Route } from './routes/route.js';
import { StaticFiles } from './static-files.js';
import { describeStoreError } from '../store/store-errors.js';

export interface ConsoleServerOptions {
  /** Lists, describes and cancels the jobs. */
  client: Client;
  /** Where the jobs' events and status are read. */
  store: JobStore;
  /** The address to listen on (default 127.0.0.1: this machine only). */
  host?: string;
  /** The port (default 0: a free one, chosen by the system). */
  port?: number;
  /** The access token every request must carry; a random one when left out. */
  token?: string;
  /**
   * How the approvals' query and decisions reach a job (contract: `AskJob`). Default: asked
   * directly, which waits for a worker. `dar ui` answers through a workflow-only worker of its
   * own when none runs, as `dar approvals` does.
   */
  askJob?: AskJob;
}

export interface ConsoleServer {
  /** The console's address, `http://host:port/`. */
  url: string;
  /** The address to open: it carries the token, which the page keeps in a cookie. */
  loginUrl: string;
  token: string;
  /** Stops listening and closes open connections (the pages' event streams too). */
  close(): Promise<void>;
}

const API_PREFIX = '/api/';

function sendText(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': 'text/plain; charset=utf-8' });
  response.end(`${text}\n`);
}

/** The route for an API request; an `HttpError` (404, 405) when there is none. */
function routeOf(
  method: string,
  pathname: string,
): { route: Route; params: Record<string, string> } {
  let pathMatched = false;
  for (const route of consoleRoutes) {
    const params = matchPath(route.path, pathname);
    if (!params) continue;
    pathMatched = true;
    if (route.method === method) return { route, params };
  }
  throw pathMatched ? new HttpError(405, 'Method not allowed') : new HttpError(404, 'Not found');
}

/**
 * The operator console's web server (`dar ui`): the jobs list and job pages from `web/`, and the
 * JSON and event-stream API they read. Resolves once it listens.
 */
export async function startConsoleServer(options: ConsoleServerOptions): Promise<ConsoleServer> {
  const token = options.token ?? generateToken();
  const guard = new AccessGuard(token);
  const staticFiles = new StaticFiles();
  const services: ConsoleServices = {
    client: options.client,
    store: options.store,
    read: cachedReader(options.store),
    askJob: options.askJob ?? ((_jobId, ask) => ask()),
  };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const method = request.method ?? 'GET';
    // Only the path and query are used: the base is a placeholder.
    const url = new URL(request.url ?? '/', 'http://console.invalid');
    const isRead = method === 'GET' || method === 'HEAD';
    const isApi = url.pathname.startsWith(API_PREFIX);

    // The login address: keep the token in a cookie and show the page without it in the address.
    if (isRead && staticFiles.isPage(url.pathname) && url.searchParams.has('token')) {
      if (!guard.tokenMatches(url.searchParams.get('token'))) {
        sendText(response, 401, "This access token is not the console's.");
        return;
      }
      url.searchParams.delete('token');
      response.writeHead(303, {
        ...SECURITY_HEADERS,
        'Set-Cookie': guard.loginCookie(),
        Location: `${url.pathname}${url.search}`,
      });
      response.end();
      return;
    }
    if (!guard.authenticated(request)) {
      const message = 'Open the address that `dar ui` printed: it carries the access token.';
      if (isApi) sendError(response, 401, message);
      else sendText(response, 401, message);
      return;
    }
    if (!guard.originAllowed(request)) {
      sendError(response, 403, 'A request that changes something must come from the console page');
      return;
    }
    if (isApi) {
      const { route, params } = routeOf(method, url.pathname);
      await route.handle({ request, response, url, params, services });
      return;
    }
    const file = staticFiles.fileOf(url.pathname);
    if (!isRead) throw new HttpError(405, 'Method not allowed');
    if (file === undefined) throw new HttpError(404, 'Not found');
    staticFiles.send(response, file, method === 'HEAD');
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (response.headersSent) {
        response.end();
        return;
      }
      if (error instanceof HttpError) sendError(response, error.status, error.message);
      else sendError(response, 500, describeStoreError(error));
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${hostInUrl(host)}:${port}/`;
  return {
    url,
    loginUrl: `${url}?token=${encodeURIComponent(token)}`,
    token,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
