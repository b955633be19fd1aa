import { startCodecServer } from '../../encryption/codec-server.js';
import {
  EncryptionSettingsError,
  keyringFromEnvironment,
} from '../../encryption/encryption-keys.js';
import { AesGcmPayloadCodec } from '../../encryption/payload-codec.js';
import { parseFlags } from '../parse-flags.js';
import { EXIT_OK, UsageError } from '../usage-error.js';

/** The port `dar codec-server` listens on when `--port` is not given. */
export const DEFAULT_CODEC_SERVER_PORT = 8888;

/**
 * `dar codec-server`: serves Temporal's codec protocol with the encryption keys of the
 * environment, so the Temporal UI (Settings, "Codec Server") and `temporal workflow show
 * --codec-endpoint` show decrypted payloads. Runs until Ctrl-C.
 */
export async function codecServerCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(
    'codec-server',
    argv,
    {
      port: { type: 'string' },
      host: { type: 'string' },
      'cors-origin': { type: 'string', multiple: true },
      token: { type: 'string' },
    },
    { min: 0, max: 0, names: 'no argument' },
  );
  let keyring;
  try {
    keyring = keyringFromEnvironment();
  } catch (error) {
    if (error instanceof EncryptionSettingsError) throw new UsageError(error.message);
    throw error;
  }
  if (!keyring) {
    throw new UsageError(
      'dar codec-server needs the encryption keys: set DAR_ENCRYPTION_KEY or DAR_ENCRYPTION_KEY_FILE',
    );
  }
  const port = parsePort(values.port);
  const token = values.token ?? (process.env.DAR_CODEC_SERVER_TOKEN?.trim() || undefined);
  const server = await startCodecServer({
    codec: new AesGcmPayloadCodec(keyring),
    port,
    ...(values.host === undefined ? {} : { host: values.host }),
    corsOrigins: values['cors-origin'] ?? [],
    ...(token === undefined ? {} : { token }),
  });
  // stdout carries only the address: a script may read it.
  console.log(server.url);
  process.stderr.write(
    `Codec server for keys ${[...keyring.byId.keys()].join(', ')} (current: ${keyring.current.id}); Ctrl-C stops it.\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.close();
  return EXIT_OK;
}

function parsePort(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_CODEC_SERVER_PORT;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(
      `dar codec-server: --port must be a port number (0 to 65535), not "${raw}"`,
    );
  }
  return port;
}
