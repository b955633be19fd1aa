import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { EncryptionKey } from './encryption-keys.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Ciphertext that does not decrypt: a wrong key, or data changed after it was written. */
export class DecryptionError extends Error {
  override name = 'DecryptionError';
}

/**
 * AES-256-GCM: `iv (12 bytes) || ciphertext || tag (16 bytes)`. The key id is bound as
 * additional authenticated data, so a ciphertext relabelled with another key id fails.
 *
 * `iv` chooses the nonce: `random` (payloads), or `derived`, an HMAC of the plaintext under a
 * key derived from the encryption key (the job store: the same value encrypts to the same
 * bytes, which keeps its writes idempotent). A derived nonce repeats only for the same
 * plaintext, so it reveals only that two stored values are equal.
 */
export function encrypt(
  key: EncryptionKey,
  plaintext: Uint8Array,
  iv: 'random' | 'derived',
): Buffer {
  const nonce = iv === 'random' ? randomBytes(IV_BYTES) : derivedNonce(key, plaintext);
  const cipher = createCipheriv('aes-256-gcm', key.key, nonce);
  cipher.setAAD(Buffer.from(key.id, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([nonce, body, cipher.getAuthTag()]);
}

/** The plaintext of {@link encrypt}'s output; throws {@link DecryptionError} when it does not authenticate. */
export function decrypt(key: EncryptionKey, sealed: Uint8Array): Buffer {
  if (sealed.length < IV_BYTES + TAG_BYTES) {
    throw new DecryptionError(`Encrypted data under key "${key.id}" is too short`);
  }
  const data = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
  const decipher = createDecipheriv('aes-256-gcm', key.key, data.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(key.id, 'utf8'));
  decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
  try {
    return Buffer.concat([
      decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)),
      decipher.final(),
    ]);
  } catch {
    throw new DecryptionError(
      `Encrypted data under key "${key.id}" does not decrypt: the key is not the one it was written with, or the data was changed`,
    );
  }
}

function derivedNonce(key: EncryptionKey, plaintext: Uint8Array): Buffer {
  const nonceKey = createHmac('sha256', key.key).update('dar job store nonce').digest();
  return createHmac('sha256', nonceKey).update(plaintext).digest().subarray(0, IV_BYTES);
}
