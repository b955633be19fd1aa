import { Client, Connection, type TLSConfig } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import type { NativeConnection } from '@temporalio/worker';
import { loadTlsConfig } from './cluster-tls.js';
import type { ConnectionSettings } from './connection-settings.js';
import { ensureDevServer } from './dev-server.js';
import { dataConverterFromEnvironment } from '../encryption/data-converter.js';
import { tracingClientInterceptors } from '../tracing/tracing-client.js';

export interface ConnectOptions {
  /** Progress lines while the embedded server is started ("Starting Temporal dev server ..."). */
  onProgress?: (message: string) => void;
  /**
   * The client's data converter (payload codecs, failure converter); it must match the
   * workers'. Default: the encrypting one when `DAR_ENCRYPTION_KEY` or
   * `DAR_ENCRYPTION_KEY_FILE` is set (see `dataConverterFromEnvironment`), else Temporal's.
   */
  dataConverter?: DataConverter;
}

/** A client-side connection and the client bound to the settings' namespace. */
export interface TemporalClientConnection {
  connection: Connection;
  client: Client;
  address: string;
  namespace: string;
}

/** A worker-side connection; workers also need the namespace. */
export interface TemporalWorkerConnection {
  connection: NativeConnection;
  address: string;
  namespace: string;
}

interface Endpoint {
  address: string;
  namespace: string;
  tls?: TLSConfig | true;
  apiKey?: string;
}

/**
 * Connects a `@temporalio/client` Connection and Client. Embedded settings first start (or
 * reuse) the dev server under their state folder. The caller closes `connection`.
 */
export async function connectClient(
  settings: ConnectionSettings,
  options: ConnectOptions = {},
): Promise<TemporalClientConnection> {
  const { address, namespace, tls, apiKey } = await endpointFor(settings, options);
  const dataConverter = options.dataConverter ?? dataConverterFromEnvironment();
  const connection = await Connection.connect({ address, tls, apiKey });
  const client = new Client({
    connection,
    namespace,
    ...(dataConverter ? { dataConverter } : {}),
    interceptors: await tracingClientInterceptors(),
  });
  return { connection, client, address, namespace };
}

/**
 * Connects a `@temporalio/worker` NativeConnection for `Worker.create`. Embedded settings
 * first start (or reuse) the dev server. The caller closes `connection`.
 */
export async function connectNativeConnection(
  settings: ConnectionSettings,
  options: ConnectOptions = {},
): Promise<TemporalWorkerConnection> {
  const { address, namespace, tls, apiKey } = await endpointFor(settings, options);
  // The worker package is loaded here only: commands that never run a worker start without it.
  const { NativeConnection } = await import('@temporalio/worker');
  const connection = await NativeConnection.connect({ address, tls, apiKey });
  return { connection, address, namespace };
}

async function endpointFor(
  settings: ConnectionSettings,
  options: ConnectOptions,
): Promise<Endpoint> {
  if (settings.kind === 'embedded') {
    const server = await ensureDevServer({
      stateDir: settings.stateDir,
      onProgress: options.onProgress,
    });
    // A server started here outlives the command that started it; say so once, when it starts.
    if (server.started) {
      options.onProgress?.(
        `It keeps running in the background (pid ${server.pid}) for this state folder's later commands and jobs; \`dar server stop\` stops it`,
      );
    }
    return { address: server.address, namespace: server.namespace };
  }
  const endpoint: Endpoint = { address: settings.address, namespace: settings.namespace };
  if (settings.tls) endpoint.tls = await loadTlsConfig(settings.tls);
  if (settings.apiKey) endpoint.apiKey = settings.apiKey;
  return endpoint;
}
