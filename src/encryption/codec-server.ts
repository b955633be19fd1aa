import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';

export interface CodecServerOptions {
  /** The codec whose `encode` and `decode` the server exposes. */
  codec: PayloadCodec;
  /** Port to listen on; 0 picks a free one. */
  port: number;
  /** Interface to listen on (default 127.0.0.1: only this machine). */
  host?: string;
  /**
   * Browser origins allowed to call the server (the Temporal UI's, e.g.
   * `http://localhost:8233`); `*` allows any. None: no CORS headers, so browsers cannot call it.
   */
  corsOrigins?: readonly string[];
  /**
   * When set, every request must carry `Authorization: Bearer <token>` (or the bare token);
   * others get 401. The Temporal UI sends its user's access token when "Pass access token" is
   * on, and the CLI sends `--codec-auth`.
   */
  token?: string;
  /** Requests larger than this many bytes are refused with 413 (default 8 MiB). */
  maxBodyBytes?: number;
}

export interface RunningCodecServer {
  /** `http://host:port` the server listens on. */
  url: string;
  close(): Promise<void>;
}

interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;

/**
 * Serves Temporal's remote codec protocol: `POST /encode` and `POST /decode` take
 * `{"payloads": [{"metadata": {"<name>": "<base64>"}, "data": "<base64>"}]}` and answer the
 * payloads encoded or decoded the same way. Preflight `OPTIONS` requests get the CORS answer.
 * Answers 400 for a malformed body, 422 for payloads that do not decode (an unknown key).
 */
export async function startCodecServer(options: CodecServerOptions): Promise<RunningCodecServer> {
  const server = createServer((request, response) => {
    handle(options, request, response).catch((error: unknown) => {
      reply(response, 500, { error: (error as Error).message });
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return { url: `http://${shownHost}:${port}`, close: () => closeServer(server) };
}

async function handle(
  options: CodecServerOptions,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  setCorsHeaders(options, request, response);
  if (request.method === 'OPTIONS') {
    response.writeHead(204).end();
    return;
  }
  if (options.token !== undefined && !authorized(options.token, request.headers.authorization)) {
    reply(response, 401, { error: 'Missing or wrong Authorization token' });
    return;
  }
  const path = new URL(request.url ?? '/', 'http://codec').pathname.replace(/\/+$/, '');
  const action = path.endsWith('/encode')
    ? 'encode'
    : path.endsWith('/decode')
      ? 'decode'
      : undefined;
  if (request.method !== 'POST' || action === undefined) {
    reply(response, 404, { error: 'POST /encode or /decode' });
    return;
  }
  const body = await readBody(request, options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
  if (body === undefined) {
    reply(response, 413, { error: 'Request body too large' });
    return;
  }
  let payloads: Payload[];
  try {
    payloads = parsePayloads(body);
  } catch (error) {
    reply(response, 400, { error: (error as Error).message });
    return;
  }
  let result: Payload[];
  try {
    result = await options.codec[action](payloads);
  } catch (error) {
    reply(response, 422, { error: (error as Error).message });
    return;
  }
  reply(response, 200, { payloads: result.map(toJsonPayload) });
}

function setCorsHeaders(
  options: CodecServerOptions,
  request: IncomingMessage,
  response: ServerResponse,
): void {
  const origin = request.headers.origin;
  const allowed = options.corsOrigins ?? [];
  if (!origin || !(allowed.includes('*') || allowed.includes(origin))) return;
  response.setHeader('Access-Control-Allow-Origin', origin);
  response.setHeader('Vary', 'Origin');
  response.setHeader('Access-Control-Allow-Credentials', 'true');
  response.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
  response.setHeader(
    'Access-Control-Allow-Headers',
    'Content-Type, Authorization, X-Namespace, Caller-Type',
  );
}

function authorized(token: string, header: string | undefined): boolean {
  if (header === undefined) return false;
  const given = header.replace(/^Bearer\s+/i, '');
  const expected = Buffer.from(token, 'utf8');
  const actual = Buffer.from(given, 'utf8');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

async function readBody(request: IncomingMessage, limit: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) return undefined;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parsePayloads(body: string): Payload[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new Error('The body is not JSON');
  }
  const payloads = (parsed as { payloads?: unknown } | null)?.payloads;
  if (!Array.isArray(payloads)) throw new Error('The body must be {"payloads": [...]}');
  return payloads.map((item: unknown, index) => {
    if (typeof item !== 'object' || item === null)
      throw new Error(`payloads[${index}] is not an object`);
    const { metadata = {}, data } = item as JsonPayload;
    const decoded: Record<string, Uint8Array> = {};
    for (const [name, value] of Object.entries(metadata)) {
      if (typeof value !== 'string')
        throw new Error(`payloads[${index}].metadata.${name} is not base64`);
      decoded[name] = Buffer.from(value, 'base64');
    }
    if (data !== undefined && typeof data !== 'string') {
      throw new Error(`payloads[${index}].data is not base64`);
    }
    return { metadata: decoded, data: Buffer.from(data ?? '', 'base64') };
  });
}

function toJsonPayload(payload: Payload): JsonPayload {
  const metadata: Record<string, string> = {};
  for (const [name, value] of Object.entries(payload.metadata ?? {})) {
    if (value) metadata[name] = Buffer.from(value).toString('base64');
  }
  return { metadata, data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64') };
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeAllConnections();
  });
}
