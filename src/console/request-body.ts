import type { IncomingMessage } from 'node:http';
import { HttpError } from './http-responses.js';

/** Request bodies larger than this are refused (a note is at most a few thousand characters). */
export const MAX_BODY_BYTES = 16_384;

/**
 * The request's body as a JSON object; `{}` when there is none. A 400 `HttpError` when it is
 * not a JSON object, 413 when it is larger than {@link MAX_BODY_BYTES}.
 */
export async function readJsonBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, 'The request body is too large');
    chunks.push(buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'The request body is not JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError(400, 'The request body must be a JSON object');
  }
  return body as Record<string, unknown>;
}
