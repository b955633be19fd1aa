/**
 * The console's access rules without a server: the token (cookie or bearer header), the Origin
 * check on requests that change something, and which hosts count as this machine only.
 */
import type { IncomingMessage } from 'node:http';
import { AccessGuard } from '../../../src/console/access-guard.js';
import { generateToken, MIN_TOKEN_LENGTH } from '../../../src/console/access-token.js';
import { isLoopbackHost } from '../../../src/console/loopback-host.js';

const TOKEN = 'a-token-of-thirty-two-characters';

function request(method: string, headers: Record<string, string>): IncomingMessage {
  return { method, headers } as unknown as IncomingMessage;
}

describe('the token', () => {
  const guard = new AccessGuard(TOKEN);

  test('is taken from the bearer header or from the console cookie, and only when equal', () => {
    expect(guard.authenticated(request('GET', { authorization: `Bearer ${TOKEN}` }))).toBe(true);
    expect(
      guard.authenticated(request('GET', { cookie: `other=1; ${guard.cookieName}=${TOKEN}` })),
    ).toBe(true);
    expect(guard.authenticated(request('GET', {}))).toBe(false);
    expect(guard.authenticated(request('GET', { authorization: `Bearer ${TOKEN}x` }))).toBe(false);
    expect(guard.authenticated(request('GET', { authorization: TOKEN }))).toBe(false);
    expect(guard.authenticated(request('GET', { cookie: `dar_console_other=${TOKEN}` }))).toBe(
      false,
    );
    expect(guard.authenticated(request('GET', { cookie: `${guard.cookieName}=` }))).toBe(false);
  });

  test('the cookie is HttpOnly and SameSite=Strict; its name differs per token, not showing it', () => {
    expect(guard.loginCookie()).toBe(
      `${guard.cookieName}=${TOKEN}; HttpOnly; SameSite=Strict; Path=/`,
    );
    const other = new AccessGuard(generateToken());
    expect(other.cookieName).not.toBe(guard.cookieName);
    expect(guard.cookieName).not.toContain(TOKEN);
  });

  test('a generated token is long and new each time', () => {
    const first = generateToken();
    expect(first.length).toBeGreaterThanOrEqual(MIN_TOKEN_LENGTH * 2);
    expect(generateToken()).not.toBe(first);
  });
});

describe('the Origin check', () => {
  const guard = new AccessGuard(TOKEN);
  const host = '127.0.0.1:4567';

  test('reads pass without an Origin', () => {
    expect(guard.originAllowed(request('GET', { host }))).toBe(true);
    expect(guard.originAllowed(request('HEAD', { host }))).toBe(true);
  });

  test.each([
    ['no Origin', {}],
    ['another site', { origin: 'http://attacker.example' }],
    ['another port', { origin: 'http://127.0.0.1:4568' }],
    ['https in place of http', { origin: `https://${host}` }],
    ['an opaque origin', { origin: 'null' }],
  ])('a POST with %s is refused', (_name, headers: Record<string, string>) => {
    expect(guard.originAllowed(request('POST', { host, ...headers }))).toBe(false);
  });

  test('a POST from the console itself passes', () => {
    expect(guard.originAllowed(request('POST', { host, origin: `http://${host}` }))).toBe(true);
  });
});

test.each([
  ['127.0.0.1', true],
  ['127.1.2.3', true],
  ['localhost', true],
  ['::1', true],
  ['[::1]', true],
  ['0.0.0.0', false],
  ['::', false],
  ['192.168.1.10', false],
  ['example.com', false],
  ['127.0.0.1.example.com', false],
])('host %s is this machine only: %s', (host, loopback) => {
  expect(isLoopbackHost(host)).toBe(loopback);
});
