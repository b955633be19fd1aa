import { readFileSync } from 'node:fs';

/** One AES-256 key and the id every payload or store object it encrypts is tagged with. */
export interface EncryptionKey {
  /** Short name of the key (letters, digits, `.`, `_`, `-`), written beside each ciphertext. */
  id: string;
  /** 32 bytes. */
  key: Buffer;
}

/**
 * The keys a process knows: `current` encrypts everything new; every key (the current one
 * included) decrypts what was written with it, so a retired key stays here until nothing
 * encrypted with it is read any more.
 */
export interface EncryptionKeyring {
  current: EncryptionKey;
  byId: ReadonlyMap<string, EncryptionKey>;
}

/** A malformed key variable or key file; the message names what to fix. */
export class EncryptionSettingsError extends Error {
  override name = 'EncryptionSettingsError';
}

/** Encrypted data (a payload or a store value) names a key the keyring does not hold. */
export class UnknownEncryptionKeyError extends Error {
  override name = 'UnknownEncryptionKeyError';
}

const KEY_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
const KEY_BYTES = 32;

/**
 * The keyring from the environment, or undefined when encryption is off:
 *
 * - `DAR_ENCRYPTION_KEY=<id>:<base64 of 32 bytes>`: one key, the current one;
 * - `DAR_ENCRYPTION_KEY_FILE=<path>`: a JSON file `{"current": "<id>", "keys": {"<id>":
 *   "<base64>", ...}}` holding the current key and the older ones still needed to decrypt.
 *
 * Setting both is an error (which one would be current is unclear). Reads the key file
 * synchronously: this runs once per process, before connecting.
 */
export function keyringFromEnvironment(
  environment: NodeJS.ProcessEnv = process.env,
): EncryptionKeyring | undefined {
  const variable = environment.DAR_ENCRYPTION_KEY?.trim();
  const file = environment.DAR_ENCRYPTION_KEY_FILE?.trim();
  if (variable && file) {
    throw new EncryptionSettingsError(
      'DAR_ENCRYPTION_KEY and DAR_ENCRYPTION_KEY_FILE are both set: use one (a key file holds several keys for rotation)',
    );
  }
  if (variable) return keyringOf([parseKeyVariable(variable)], undefined);
  if (file) return readKeyFile(file);
  return undefined;
}

/** Builds a keyring; `currentId` defaults to the only key. */
export function keyringOf(
  keys: readonly EncryptionKey[],
  currentId: string | undefined,
): EncryptionKeyring {
  const byId = new Map<string, EncryptionKey>();
  for (const key of keys) {
    if (byId.has(key.id))
      throw new EncryptionSettingsError(`Encryption key id "${key.id}" is given twice`);
    byId.set(key.id, key);
  }
  const id = currentId ?? (keys.length === 1 ? keys[0]?.id : undefined);
  const current = id === undefined ? undefined : byId.get(id);
  if (!current) {
    throw new EncryptionSettingsError(
      id === undefined
        ? 'The encryption keys name no current key ("current": "<key id>")'
        : `The current encryption key "${id}" is not among the keys`,
    );
  }
  return { current, byId };
}

/** `<id>:<base64 of 32 bytes>` (the form of `DAR_ENCRYPTION_KEY`). */
export function parseKeyVariable(text: string): EncryptionKey {
  const colon = text.indexOf(':');
  if (colon < 0) {
    throw new EncryptionSettingsError(
      'DAR_ENCRYPTION_KEY must be <key id>:<base64 of 32 random bytes>, e.g. "k1:$(openssl rand -base64 32)"',
    );
  }
  return encryptionKey(text.slice(0, colon), text.slice(colon + 1), 'DAR_ENCRYPTION_KEY');
}

/** A key from its id and base64 text, checked. `origin` names where it came from in errors. */
export function encryptionKey(id: string, base64: string, origin: string): EncryptionKey {
  if (!KEY_ID_PATTERN.test(id)) {
    throw new EncryptionSettingsError(
      `${origin}: the key id "${id}" must be 1 to 64 letters, digits, ".", "_" or "-"`,
    );
  }
  const trimmed = base64.trim();
  const key = Buffer.from(trimmed, 'base64');
  if (
    key.length !== KEY_BYTES ||
    key.toString('base64').replace(/=+$/, '') !== trimmed.replace(/=+$/, '')
  ) {
    throw new EncryptionSettingsError(
      `${origin}: the key "${id}" must be ${KEY_BYTES} bytes in base64 (openssl rand -base64 32), not ${key.length} bytes`,
    );
  }
  return { id, key };
}

function readKeyFile(path: string): EncryptionKeyring {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new EncryptionSettingsError(
      `DAR_ENCRYPTION_KEY_FILE: cannot read ${path} as JSON: ${(error as Error).message}`,
    );
  }
  const origin = `DAR_ENCRYPTION_KEY_FILE (${path})`;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new EncryptionSettingsError(
      `${origin} must hold {"current": "<id>", "keys": {"<id>": "<base64>"}}`,
    );
  }
  const { current, keys } = parsed as { current?: unknown; keys?: unknown };
  if (
    typeof current !== 'string' ||
    typeof keys !== 'object' ||
    keys === null ||
    Array.isArray(keys)
  ) {
    throw new EncryptionSettingsError(
      `${origin} must hold {"current": "<id>", "keys": {"<id>": "<base64>"}}`,
    );
  }
  const list = Object.entries(keys as Record<string, unknown>).map(([id, value]) => {
    if (typeof value !== 'string')
      throw new EncryptionSettingsError(`${origin}: key "${id}" is not a base64 string`);
    return encryptionKey(id, value, origin);
  });
  return keyringOf(list, current);
}
