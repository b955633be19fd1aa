import { resolve } from 'node:path';

/** The folder, relative to the working directory, that holds the embedded server's state. */
export const DEFAULT_STATE_DIR = '.dar';

/** The namespace used when `TEMPORAL_NAMESPACE` is not set (and always by the embedded server). */
export const DEFAULT_NAMESPACE = 'default';

/** No `TEMPORAL_ADDRESS`: the runner starts (or reuses) its own dev server under `stateDir`. */
export interface EmbeddedConnectionSettings {
  kind: 'embedded';
  /** Absolute path of the folder holding the server's database, log and state files. */
  stateDir: string;
}

/** TLS for a real cluster. Paths are read when connecting, not when resolving. */
export interface ClusterTlsSettings {
  /** Client certificate file (PEM) for mTLS; always set together with `clientKeyPath`. */
  clientCertPath?: string;
  /** Client private key file (PEM) for mTLS; always set together with `clientCertPath`. */
  clientKeyPath?: string;
  /** CA certificate file (PEM) for servers whose certificate the system does not trust. */
  serverRootCaPath?: string;
  /** Overrides the name checked against the server's certificate (SNI). */
  serverName?: string;
}

/** `TEMPORAL_ADDRESS` set: a real Temporal cluster or Temporal Cloud. */
export interface ClusterConnectionSettings {
  kind: 'cluster';
  /** `host:port` of the cluster's frontend. */
  address: string;
  namespace: string;
  /** Present when the connection uses TLS; an empty object means TLS with system defaults. */
  tls?: ClusterTlsSettings;
  /** Temporal Cloud API key, sent as a bearer token. */
  apiKey?: string;
}

export type ConnectionSettings = EmbeddedConnectionSettings | ClusterConnectionSettings;

export interface ResolveConnectionOptions {
  /** Explicit state folder (e.g. a command-line flag); wins over `DAR_STATE_DIR`. */
  stateDir?: string;
  /** The folder a relative state folder is resolved against; the process's cwd by default. */
  cwd?: string;
}

/** A misconfigured environment; the message names the variables to fix. */
export class ConnectionSettingsError extends Error {
  override name = 'ConnectionSettingsError';
}

/** Variables that only make sense for a real cluster; set without an address, they are a mistake. */
const CLUSTER_ONLY_VARIABLES = [
  'TEMPORAL_API_KEY',
  'TEMPORAL_TLS',
  'TEMPORAL_TLS_CERT',
  'TEMPORAL_TLS_KEY',
  'TEMPORAL_TLS_CA',
  'TEMPORAL_TLS_SERVER_NAME',
] as const;

/**
 * Decides where the runner's Temporal lives, from the environment:
 *
 * - no `TEMPORAL_ADDRESS`: `{ kind: 'embedded', stateDir }`, the state folder being
 *   `options.stateDir`, else `DAR_STATE_DIR`, else `./.dar`, resolved against `options.cwd`;
 * - `TEMPORAL_ADDRESS=host:port`: `{ kind: 'cluster', ... }` with `TEMPORAL_NAMESPACE`
 *   (default "default"), `TEMPORAL_API_KEY` (Temporal Cloud; turns TLS on), the mTLS pair
 *   `TEMPORAL_TLS_CERT` + `TEMPORAL_TLS_KEY` (file paths), `TEMPORAL_TLS_CA` (file path),
 *   `TEMPORAL_TLS_SERVER_NAME`, and `TEMPORAL_TLS=true|false` (explicit on or off; any TLS
 *   file or server name turns TLS on, an API key too unless `TEMPORAL_TLS=false`).
 *
 * Pure: reads no files. Throws {@link ConnectionSettingsError} for a certificate without its key
 * (or the reverse), TLS files with `TEMPORAL_TLS=false`, a URL instead of `host:port`, an
 * unreadable `TEMPORAL_TLS` value, or cluster-only variables without `TEMPORAL_ADDRESS`.
 */
export function resolveConnectionSettings(
  env: NodeJS.ProcessEnv = process.env,
  options: ResolveConnectionOptions = {},
): ConnectionSettings {
  const address = nonEmpty(env.TEMPORAL_ADDRESS);
  if (!address) return resolveEmbedded(env, options);

  if (address.includes('://')) {
    throw new ConnectionSettingsError(
      `TEMPORAL_ADDRESS must be host:port (e.g. my-ns.a1b2c.tmprl.cloud:7233), not a URL: ${address}`,
    );
  }
  const settings: ClusterConnectionSettings = {
    kind: 'cluster',
    address,
    namespace: nonEmpty(env.TEMPORAL_NAMESPACE) ?? DEFAULT_NAMESPACE,
  };
  const apiKey = nonEmpty(env.TEMPORAL_API_KEY);
  if (apiKey) settings.apiKey = apiKey;
  const tls = resolveTls(env, apiKey !== undefined);
  if (tls) settings.tls = tls;
  return settings;
}

function resolveEmbedded(
  env: NodeJS.ProcessEnv,
  options: ResolveConnectionOptions,
): EmbeddedConnectionSettings {
  const stray = CLUSTER_ONLY_VARIABLES.filter((name) => nonEmpty(env[name]) !== undefined);
  if (stray.length > 0) {
    throw new ConnectionSettingsError(
      `${stray.join(', ')} ${stray.length === 1 ? 'is' : 'are'} set but TEMPORAL_ADDRESS is not: ` +
        'set TEMPORAL_ADDRESS to the cluster (host:port), or unset them to use the embedded server',
    );
  }
  const namespace = nonEmpty(env.TEMPORAL_NAMESPACE);
  if (namespace !== undefined && namespace !== DEFAULT_NAMESPACE) {
    throw new ConnectionSettingsError(
      `TEMPORAL_NAMESPACE=${namespace} needs TEMPORAL_ADDRESS: ` +
        `the embedded server only serves the "${DEFAULT_NAMESPACE}" namespace`,
    );
  }
  const folder = nonEmpty(options.stateDir) ?? nonEmpty(env.DAR_STATE_DIR) ?? DEFAULT_STATE_DIR;
  return { kind: 'embedded', stateDir: resolve(options.cwd ?? process.cwd(), folder) };
}

function resolveTls(env: NodeJS.ProcessEnv, hasApiKey: boolean): ClusterTlsSettings | undefined {
  const clientCertPath = nonEmpty(env.TEMPORAL_TLS_CERT);
  const clientKeyPath = nonEmpty(env.TEMPORAL_TLS_KEY);
  if (clientCertPath && !clientKeyPath) {
    throw new ConnectionSettingsError(
      'TEMPORAL_TLS_CERT is set but TEMPORAL_TLS_KEY is not: mTLS needs both the client certificate and its private key',
    );
  }
  if (clientKeyPath && !clientCertPath) {
    throw new ConnectionSettingsError(
      'TEMPORAL_TLS_KEY is set but TEMPORAL_TLS_CERT is not: mTLS needs both the client certificate and its private key',
    );
  }
  const tls: ClusterTlsSettings = {};
  if (clientCertPath && clientKeyPath) Object.assign(tls, { clientCertPath, clientKeyPath });
  const serverRootCaPath = nonEmpty(env.TEMPORAL_TLS_CA);
  if (serverRootCaPath) tls.serverRootCaPath = serverRootCaPath;
  const serverName = nonEmpty(env.TEMPORAL_TLS_SERVER_NAME);
  if (serverName) tls.serverName = serverName;

  const explicit = parseBoolean('TEMPORAL_TLS', env.TEMPORAL_TLS);
  const hasTlsDetails = Object.keys(tls).length > 0;
  if (explicit === false) {
    if (hasTlsDetails) {
      throw new ConnectionSettingsError(
        'TEMPORAL_TLS=false contradicts TEMPORAL_TLS_CERT/KEY/CA/SERVER_NAME: unset one or the other',
      );
    }
    // An API key over plain text is unusual (a local proxy, say) but was asked for explicitly.
    return undefined;
  }
  return explicit === true || hasTlsDetails || hasApiKey ? tls : undefined;
}

function parseBoolean(name: string, raw: string | undefined): boolean | undefined {
  const value = nonEmpty(raw)?.toLowerCase();
  if (value === undefined) return undefined;
  if (['true', '1', 'yes', 'on'].includes(value)) return true;
  if (['false', '0', 'no', 'off'].includes(value)) return false;
  throw new ConnectionSettingsError(`${name} must be true or false, not "${raw}"`);
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
