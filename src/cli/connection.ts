import type { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import {
  ConnectionSettingsError,
  connectClient,
  connectNativeConnection,
  resolveConnectionSettings,
  type ConnectionSettings,
} from '../server/index.js';
import { UsageError } from './usage-error.js';

export interface CliConnection {
  client: Client;
  namespace: string;
  settings: ConnectionSettings;
  /** A worker connection, made on first use. */
  workerConnection(): Promise<NativeConnection>;
  close(): Promise<void>;
}

function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}

/**
 * Connects to Temporal the way every command does: TEMPORAL_ADDRESS when set, else the
 * embedded dev server under the state folder (started in the background when not running).
 */
export async function openConnection(stateDir?: string): Promise<CliConnection> {
  let settings: ConnectionSettings;
  try {
    settings = resolveConnectionSettings(process.env, stateDir ? { stateDir } : {});
  } catch (error) {
    if (error instanceof ConnectionSettingsError) throw new UsageError(error.message);
    throw error;
  }
  const opened = await connectClient(settings, { onProgress: progress });
  let native: NativeConnection | undefined;
  return {
    client: opened.client,
    namespace: opened.namespace,
    settings,
    async workerConnection() {
      native ??= (await connectNativeConnection(settings, { onProgress: progress })).connection;
      return native;
    },
    async close() {
      await native?.close();
      await opened.connection.close();
    },
  };
}
