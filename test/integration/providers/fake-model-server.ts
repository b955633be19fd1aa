import {
  createServer,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the fake received. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (undefined when it was not JSON). */
  body: unknown;
  /** When it arrived (Date.now()). */
  at: number;
  /** True when the client closed the connection before the reply was finished. */
  closedEarly: boolean;
}

/** Answers one request. Resolve when done writing (or leave the response open, to stall). */
export type Reply = (response: ServerResponse, request: RecordedRequest) => void | Promise<void>;

/**
 * A model API on 127.0.0.1 with a random port: it answers requests, in arrival order, with the
 * replies queued by the test, and records every request. A request with no reply queued gets a
 * 400, which ends a run at once, so a missing reply shows up as a failure, not a hang.
 */
export class FakeModelServer {
  readonly requests: RecordedRequest[] = [];
  private readonly replies: Reply[] = [];
  private readonly waiters: Array<() => void> = [];

  private constructor(private readonly server: Server) {}

  static async start(): Promise<FakeModelServer> {
    const server = createServer();
    const fake = new FakeModelServer(server);
    server.on('request', (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        const recorded: RecordedRequest = {
          method: request.method ?? '',
          path: request.url ?? '',
          headers: request.headers,
          body,
          at: Date.now(),
          closedEarly: false,
        };
        response.on('close', () => {
          if (!response.writableFinished) recorded.closedEarly = true;
          fake.notify();
        });
        fake.requests.push(recorded);
        fake.notify();
        const reply = fake.replies.shift() ?? noReplyQueued;
        void Promise.resolve(reply(response, recorded)).catch((error: unknown) => {
          response.destroy(error instanceof Error ? error : new Error(String(error)));
        });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get url(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  /** Queues replies for the next requests, in order. */
  reply(...replies: Reply[]): void {
    this.replies.push(...replies);
  }

  /** Forgets requests and queued replies (between tests). */
  reset(): void {
    this.requests.length = 0;
    this.replies.length = 0;
  }

  /** Resolves once `probe()` holds, re-checked whenever a request arrives or closes. */
  async until(probe: () => boolean, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!probe()) {
      if (Date.now() > deadline) throw new Error('fake model server: condition not met in time');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 100);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private notify(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }
}

function noReplyQueued(response: ServerResponse, request: RecordedRequest): void {
  response.writeHead(400, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify({
      error: { message: `fake server: no reply queued for ${request.method} ${request.path}` },
    }),
  );
}

/** A JSON answer with a status, e.g. an API error body. */
export function jsonReply(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): (response: ServerResponse) => void {
  return (response) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  };
}

/** One server-sent event: `event:` line when named, then `data:`. */
export interface SseEvent {
  event?: string;
  data: string;
}

/**
 * A `text/event-stream` answer, written event by event with `delayMs` between them. With
 * `stall`, the stream stays open after the last event until the client goes away.
 */
export function sseReply(
  events: SseEvent[],
  options: { delayMs?: number; stall?: boolean } = {},
): Reply {
  return async (response) => {
    response.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    for (const event of events) {
      if (response.destroyed) return;
      const name = event.event === undefined ? '' : `event: ${event.event}\n`;
      response.write(`${name}data: ${event.data}\n\n`);
      if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
    }
    if (!options.stall) response.end();
  };
}
