import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { AesGcmPayloadCodec } from '../../src/encryption/payload-codec.js';
import { keyringOf } from '../../src/encryption/encryption-keys.js';
import { dar, killLeftoverDars, startDar, type DarProcess } from './support/dar.js';
import { waitFor } from './support/wait.js';

afterEach(killLeftoverDars);

const UI_ORIGIN = 'http://ui.example:8233';

async function started(process: DarProcess): Promise<string> {
  await waitFor(
    'the codec server address',
    () => process.stdout.includes('http://') || !process.isRunning,
    {
      timeoutMs: 20_000,
    },
  );
  const url = process.stdout.trim().split('\n')[0] ?? '';
  if (!url.startsWith('http://')) throw new Error(`codec server did not start:\n${process.stderr}`);
  return url;
}

function post(url: string, body: unknown, token?: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Origin: UI_ORIGIN,
      ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(body),
  });
}

test('dar codec-server: CORS for the UI origin, the token checked, and payloads encoded and decoded over HTTP with a rotated key file', async () => {
  const old = randomBytes(32);
  const current = randomBytes(32);
  const folder = mkdtempSync(join(tmpdir(), 'dar-codec-'));
  const keyFile = join(folder, 'keys.json');
  writeFileSync(
    keyFile,
    JSON.stringify({
      current: 'k2',
      keys: { k1: old.toString('base64'), k2: current.toString('base64') },
    }),
  );
  const server = startDar(
    ['codec-server', '--port', '0', '--cors-origin', UI_ORIGIN, '--token', 'let-me-in'],
    { env: { DAR_ENCRYPTION_KEY_FILE: keyFile } },
  );
  const url = await started(server);

  const preflight = await fetch(`${url}/decode`, {
    method: 'OPTIONS',
    headers: { Origin: UI_ORIGIN, 'Access-Control-Request-Method': 'POST' },
  });
  expect(preflight.status).toBe(204);
  expect(preflight.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
  expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
  const otherOrigin = await fetch(`${url}/decode`, {
    method: 'OPTIONS',
    headers: { Origin: 'http://elsewhere.example' },
  });
  expect(otherOrigin.headers.get('access-control-allow-origin')).toBeNull();

  // A payload a worker wrote with the old key k1, before the rotation.
  const [written] = await new AesGcmPayloadCodec(keyringOf([{ id: 'k1', key: old }], 'k1')).encode([
    defaultPayloadConverter.toPayload({ prompt: 'secret prompt' }),
  ]);
  const asJson = {
    payloads: [
      {
        metadata: Object.fromEntries(
          Object.entries(written!.metadata!).map(([name, bytes]) => [
            name,
            Buffer.from(bytes).toString('base64'),
          ]),
        ),
        data: Buffer.from(written!.data!).toString('base64'),
      },
    ],
  };
  expect((await post(`${url}/decode`, asJson)).status).toBe(401);
  expect((await post(`${url}/decode`, asJson, 'wrong')).status).toBe(401);

  const decoded = await post(`${url}/decode`, asJson, 'let-me-in');
  expect(decoded.status).toBe(200);
  expect(decoded.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
  const plain = ((await decoded.json()) as { payloads: { data: string }[] }).payloads[0]!;
  expect(JSON.parse(Buffer.from(plain.data, 'base64').toString('utf8'))).toEqual({
    prompt: 'secret prompt',
  });

  // Encoding goes through the current key, k2.
  const encoded = await post(`${url}/encode`, { payloads: [plain] }, 'let-me-in');
  const sealed = ((await encoded.json()) as { payloads: { metadata: Record<string, string> }[] })
    .payloads[0]!;
  expect(Buffer.from(sealed.metadata['encryption-key-id']!, 'base64').toString()).toBe('k2');

  expect((await post(`${url}/decode`, { nope: 1 }, 'let-me-in')).status).toBe(400);
  server.signal('SIGTERM');
  expect((await server.done).code).toBe(0);
});

test('dar codec-server without keys is a usage error', async () => {
  const result = await dar(['codec-server', '--port', '0']);
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(/DAR_ENCRYPTION_KEY/);
});
