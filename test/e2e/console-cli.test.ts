/**
 * `dar ui` as a user runs it: bad flags exit 2 before anything starts; it starts the embedded
 * server when needed, prints the console's address with its access token, answers only with
 * that token, and stops on SIGINT with exit 0. On a host other machines can reach, a token is
 * still made and printed, with a warning.
 */
import { join } from 'node:path';
import { dar, describeResult, killLeftoverDars, startDar, type DarProcess } from './support/dar.js';
import { makeTempDir, removeDir } from './support/files.js';
import { stopServer } from './support/temporal.js';
import { waitFor } from './support/wait.js';

const root = makeTempDir('console-cli');
const stateDir = join(root, 'state');

afterAll(async () => {
  await killLeftoverDars();
  await stopServer(stateDir);
  removeDir(root);
});

/** The address `dar ui` printed, once it did. */
async function printedAddress(ui: DarProcess): Promise<URL> {
  const line = await waitFor(
    'dar ui to print its address',
    () => ui.stdout.split('\n').find((text) => text.startsWith('Operator console: ')),
    { timeoutMs: 90_000 },
  );
  return new URL(line.slice('Operator console: '.length));
}

async function stopsOnSigint(ui: DarProcess): Promise<void> {
  ui.signal('SIGINT');
  const result = await ui.done;
  expect({ code: result.code, output: describeResult(result) }).toMatchObject({ code: 0 });
}

test.each([
  [['--token', 'too-short'], /at least 16 characters/],
  [['--port', 'eighty'], /--port must be a port number/],
  [['--port', '70000'], /--port must be a port number/],
  [['extra-argument'], /expected no argument/],
])('dar ui %j exits 2 with a message, starting nothing', async (args, message) => {
  const result = await dar(['ui', ...args, '--state-dir', join(root, 'unused')]);
  expect({ code: result.code, stderr: result.stderr }).toMatchObject({
    code: 2,
    stderr: expect.stringMatching(message) as unknown,
  });
  expect(result.stdout).toBe('');
});

test('dar ui prints an address with a fresh token; the API answers only with it; SIGINT stops it', async () => {
  const ui = startDar(['ui', '--state-dir', stateDir], { timeoutMs: 120_000 });
  const address = await printedAddress(ui);
  expect(address.hostname).toBe('127.0.0.1');
  const token = address.searchParams.get('token') ?? '';
  expect(token.length).toBeGreaterThanOrEqual(32);

  const api = new URL('/api/jobs', address);
  expect((await fetch(api)).status).toBe(401);
  const answer = await fetch(api, { headers: { Authorization: `Bearer ${token}` } });
  expect(answer.status).toBe(200);
  expect(await answer.json()).toMatchObject({ jobs: [], counts: { all: 0 } });
  const login = await fetch(address, { redirect: 'manual' });
  expect(login.status).toBe(303);
  await stopsOnSigint(ui);
});

test('dar ui --host 0.0.0.0 still needs a token: DAR_UI_TOKEN is used, and it warns', async () => {
  const token = 'a-token-from-the-environment';
  const ui = startDar(['ui', '--host', '0.0.0.0', '--port', '0', '--state-dir', stateDir], {
    env: { DAR_UI_TOKEN: token },
    timeoutMs: 120_000,
  });
  const address = await printedAddress(ui);
  expect(address.searchParams.get('token')).toBe(token);
  expect(ui.stderr).toMatch(/reachable from other machines/);
  // Asked on this machine's loopback address only.
  const api = `http://127.0.0.1:${address.port}/api/jobs`;
  expect((await fetch(api)).status).toBe(401);
  expect((await fetch(api, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(200);
  await stopsOnSigint(ui);
});
