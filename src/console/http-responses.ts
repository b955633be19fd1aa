import type { ServerResponse } from 'node:http';

/**
 * Headers on every response. The policy lets pages run only the console's own scripts and
 * styles, so that text from a model or a tool that reached the page as markup could still not
 * run (the pages also build their DOM with `textContent`, never from markup).
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  // The login address carries the token: no page may send it on as a referrer.
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

/** Sends a JSON body (data from jobs goes to pages only this way, never as markup). */
export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    ...SECURITY_HEADERS,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  response.end(text);
}

/** Sends `{ "error": message }` with the status. */
export function sendError(response: ServerResponse, status: number, message: string): void {
  sendJson(response, status, { error: message });
}

/** A client error with its HTTP status, thrown by a route and answered as JSON. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}
