import type { Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';
import { decrypt, encrypt } from './aes-gcm.js';
import { UnknownEncryptionKeyError, type EncryptionKeyring } from './encryption-keys.js';

/** The `encoding` metadata of an encrypted payload. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** The metadata entry naming the key a payload was encrypted with. */
export const KEY_ID_METADATA = 'encryption-key-id';

// A CommonJS package: its namespace is the default export under Node's ESM loader.
const { Payload: PayloadMessage } = proto.temporal.api.common.v1;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Temporal payload codec: AES-256-GCM over each whole payload (its metadata and data, as the
 * `Payload` protobuf), with the keyring's current key. The encrypted payload's metadata says
 * `encoding: binary/encrypted` and `encryption-key-id: <id>`, so any key of the keyring
 * decrypts what it wrote. Payloads that are not encrypted (written before encryption was
 * turned on) decode as they are.
 */
export class AesGcmPayloadCodec implements PayloadCodec {
  constructor(private readonly keyring: EncryptionKeyring) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const key = this.keyring.current;
    return payloads.map((payload) => ({
      metadata: {
        encoding: encoder.encode(ENCRYPTED_ENCODING),
        [KEY_ID_METADATA]: encoder.encode(key.id),
      },
      data: encrypt(key, PayloadMessage.encode(payload).finish(), 'random'),
    }));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const encoding = payload.metadata?.encoding;
      if (!encoding || decoder.decode(encoding) !== ENCRYPTED_ENCODING) return payload;
      const idBytes = payload.metadata?.[KEY_ID_METADATA];
      const id = idBytes ? decoder.decode(idBytes) : '';
      const key = this.keyring.byId.get(id);
      if (!key) {
        throw new UnknownEncryptionKeyError(
          `A payload is encrypted with key "${id}", which is not among the configured keys (${[...this.keyring.byId.keys()].join(', ')})`,
        );
      }
      const plain = decrypt(key, payload.data ?? new Uint8Array());
      return PayloadMessage.decode(plain);
    });
  }
}
