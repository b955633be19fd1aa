import { canonicalJson } from '../store/canonical-json.js';
import type { JsonValue } from '../store/references.js';
import { decrypt, encrypt } from './aes-gcm.js';
import { UnknownEncryptionKeyError, type EncryptionKeyring } from './encryption-keys.js';

/** How an encrypted value is stored: the key's id and the AES-GCM output in base64. */
export interface SealedJson {
  darEncrypted: 1;
  key: string;
  data: string;
}

/** Whether a stored value is an encrypted one (anything else was written in plain JSON). */
export function isSealedJson(value: unknown): value is SealedJson {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  return (
    record.darEncrypted === 1 && typeof record.key === 'string' && typeof record.data === 'string'
  );
}

/**
 * Encrypts a JSON value (its own JSON text, key order kept) with the current key. The nonce is
 * derived from the text, so sealing the same value twice gives the same record: the store's
 * idempotent writes (same object, same event seq) stay idempotent. Rejects with `NotJsonError`
 * what the store itself would reject.
 */
export function sealJson(keyring: EncryptionKeyring, value: unknown): SealedJson {
  canonicalJson(value);
  const key = keyring.current;
  const sealed = encrypt(key, Buffer.from(JSON.stringify(value), 'utf8'), 'derived');
  return { darEncrypted: 1, key: key.id, data: sealed.toString('base64') };
}

/** The value a stored record holds: decrypted when sealed, as it is otherwise. */
export function openJson(keyring: EncryptionKeyring, stored: JsonValue): JsonValue {
  if (!isSealedJson(stored)) return stored;
  const key = keyring.byId.get(stored.key);
  if (!key) {
    throw new UnknownEncryptionKeyError(
      `A job store value is encrypted with key "${stored.key}", which is not among the configured keys (${[...keyring.byId.keys()].join(', ')})`,
    );
  }
  return JSON.parse(decrypt(key, Buffer.from(stored.data, 'base64')).toString('utf8')) as JsonValue;
}
