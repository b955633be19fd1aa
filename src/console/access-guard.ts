import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { tokenMatches } from './access-token.js';

/** Methods that change nothing: every other one must come from the console's own pages. */
const READ_METHODS = new Set(['GET', 'HEAD']);

/**
 * Who may use the console. Every request needs the access token: from the console's cookie
 * (set when the printed address, which carries `?token=`, is opened) or from an
 * `Authorization: Bearer` header (scripts). A request that changes something (any method but
 * GET and HEAD) must also carry an `Origin` header naming the console itself, so that another
 * web site open in the same browser cannot make the browser send it (the cookie is also
 * `SameSite=Strict`).
 */
export class AccessGuard {
  /** One cookie per token, so that two consoles on one host (other ports) keep theirs. */
  readonly cookieName: string;

  constructor(private readonly token: string) {
    const tag = createHash('sha256').update(token, 'utf8').digest('hex').slice(0, 12);
    this.cookieName = `dar_console_${tag}`;
  }

  /** Whether the request carries the token (cookie or bearer header). */
  authenticated(request: IncomingMessage): boolean {
    const header = request.headers.authorization;
    const bearer = header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : undefined;
    return tokenMatches(this.token, bearer) || tokenMatches(this.token, this.cookieOf(request));
  }

  /** Whether `given` (the `?token=` of a login address) is the token. */
  tokenMatches(given: string | null): boolean {
    return tokenMatches(this.token, given ?? undefined);
  }

  /** The `Set-Cookie` value that keeps the browser signed in for this session. */
  loginCookie(): string {
    return `${this.cookieName}=${this.token}; HttpOnly; SameSite=Strict; Path=/`;
  }

  /**
   * Whether the request may change something: a read method, or an `Origin` header equal to the
   * console's own origin (as the browser reached it, from the `Host` header).
   */
  originAllowed(request: IncomingMessage): boolean {
    if (READ_METHODS.has(request.method ?? 'GET')) return true;
    const origin = request.headers.origin;
    const host = request.headers.host;
    return origin !== undefined && host !== undefined && origin === `http://${host}`;
  }

  private cookieOf(request: IncomingMessage): string | undefined {
    for (const part of (request.headers.cookie ?? '').split(';')) {
      const separator = part.indexOf('=');
      if (separator === -1) continue;
      if (part.slice(0, separator).trim() === this.cookieName) {
        return part.slice(separator + 1).trim();
      }
    }
    return undefined;
  }
}
