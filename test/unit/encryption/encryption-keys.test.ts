import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import {
  EncryptionSettingsError,
  keyringFromEnvironment,
} from '../../../src/encryption/encryption-keys.js';

const base64Key = () => randomBytes(32).toString('base64');

test('no key variable or file: encryption is off', () => {
  expect(keyringFromEnvironment({})).toBeUndefined();
});

test('DAR_ENCRYPTION_KEY=<id>:<base64> is the one current key', () => {
  const keyring = keyringFromEnvironment({ DAR_ENCRYPTION_KEY: `k1:${base64Key()}` });
  expect(keyring?.current.id).toBe('k1');
  expect(keyring?.current.key).toHaveLength(32);
  expect([...(keyring?.byId.keys() ?? [])]).toEqual(['k1']);
});

test.each([
  ['no id', base64Key()],
  ['a short key', `k1:${randomBytes(16).toString('base64')}`],
  ['not base64', 'k1:!!!!'],
  ['a bad id', `k 1:${base64Key()}`],
])('DAR_ENCRYPTION_KEY with %s is refused with a message', (_case, value) => {
  expect(() => keyringFromEnvironment({ DAR_ENCRYPTION_KEY: value })).toThrow(
    EncryptionSettingsError,
  );
});

test('a key file holds several keys and names the current one (rotation)', () => {
  const folder = mkdtempSync(join(tmpdir(), 'dar-keys-'));
  const path = join(folder, 'keys.json');
  writeFileSync(
    path,
    JSON.stringify({ current: 'k2', keys: { k1: base64Key(), k2: base64Key() } }),
  );
  const keyring = keyringFromEnvironment({ DAR_ENCRYPTION_KEY_FILE: path });
  expect(keyring?.current.id).toBe('k2');
  expect([...(keyring?.byId.keys() ?? [])].sort()).toEqual(['k1', 'k2']);

  writeFileSync(path, JSON.stringify({ current: 'k3', keys: { k1: base64Key() } }));
  expect(() => keyringFromEnvironment({ DAR_ENCRYPTION_KEY_FILE: path })).toThrow(/"k3"/);
  expect(() =>
    keyringFromEnvironment({
      DAR_ENCRYPTION_KEY_FILE: path,
      DAR_ENCRYPTION_KEY: `k1:${base64Key()}`,
    }),
  ).toThrow(/both set/);
});
