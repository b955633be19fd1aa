import { fileURLToPath } from 'node:url';
import type { DataConverter } from '@temporalio/common';
import { keyringFromEnvironment, type EncryptionKeyring } from './encryption-keys.js';
import { AesGcmPayloadCodec } from './payload-codec.js';

/**
 * The data converter of every Temporal client and worker of an encrypting deployment: the
 * AES-GCM payload codec, and failures whose message and stack trace travel as an (encrypted)
 * payload instead of plain text ("Encoded failure" is what history shows), since a tool's
 * error message may quote the data it worked on. Workflow code reads such failures with the
 * default converter, so the prebuilt workflow bundle needs no change.
 */
export function encryptingDataConverter(keyring: EncryptionKeyring): DataConverter {
  return {
    payloadCodecs: [new AesGcmPayloadCodec(keyring)],
    failureConverterPath: fileURLToPath(
      new URL('./encoded-failure-converter.cjs', import.meta.url),
    ),
  };
}

/**
 * The data converter the environment asks for: the encrypting one when `DAR_ENCRYPTION_KEY` or
 * `DAR_ENCRYPTION_KEY_FILE` is set (see `keyringFromEnvironment`), else undefined (Temporal's
 * default, payloads in plain JSON). Throws `EncryptionSettingsError` for a malformed key.
 */
export function dataConverterFromEnvironment(
  environment: NodeJS.ProcessEnv = process.env,
): DataConverter | undefined {
  const keyring = keyringFromEnvironment(environment);
  return keyring ? encryptingDataConverter(keyring) : undefined;
}
