import { existsSync } from 'node:fs';
import type { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import {
  ConnectionSettingsError,
  connectClient,
  connectNativeConnection,
  resolveConnectionSettings,
  type ConnectionSettings,
} from '../server/index.js';
import { DEV_SERVER_NAMESPACE } from '../server/dev-server-command.js';
import { devServerPaths } from '../server/dev-server-files.js';
import { tracingRequested } from '../tracing/tracing-environment.js';
import { registerMissingSearchAttributes } from '../worker/search-attributes-check.js';
import type { JobStore } from '../store/job-store.js';
import { openCliJobStore } from './job-store-connection.js';
import { noSuchJobMessage } from './no-such-job.js';
import { UsageError } from './usage-error.js';
import type { CliRuntimeOptions } from './worker-runtime.js';

export interface CliConnection {
  client: Client;
  namespace: string;
  settings: ConnectionSettings;
  /** The job store: the jobs' events, status and transcripts. */
  store: JobStore;
  /**
   * A worker connection, made on first use; `runtime` sets up the process's Temporal runtime
   * (only the first call's counts).
   */
  workerConnection(runtime?: CliRuntimeOptions): Promise<NativeConnection>;
  close(): Promise<void>;
}

function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}

export interface OpenConnectionOptions {
  /**
   * The existing job the command is about (`dar status ID`). On the embedded server, a state
   * folder with no Temporal database has never run a job: the command fails at once with
   * "No job with id ...", and no server is started only to answer that.
   */
  jobId?: string;
}

/**
 * Connects to Temporal the way every command does: TEMPORAL_ADDRESS when set, else the
 * embedded dev server under the state folder (started in the background when not running).
 */
export async function openConnection(
  stateDir?: string,
  options: OpenConnectionOptions = {},
): Promise<CliConnection> {
  let settings: ConnectionSettings;
  try {
    settings = resolveConnectionSettings(process.env, stateDir ? { stateDir } : {});
  } catch (error) {
    if (error instanceof ConnectionSettingsError) throw new UsageError(error.message);
    throw error;
  }
  if (
    options.jobId !== undefined &&
    settings.kind === 'embedded' &&
    !existsSync(devServerPaths(settings.stateDir).databaseFile)
  ) {
    const message = noSuchJobMessage(settings, DEV_SERVER_NAMESPACE, options.jobId);
    throw new UsageError(`${message}; no job has run there yet`);
  }
  const store = await openCliJobStore(settings, stateDir);
  const opened = await connectClient(settings, { onProgress: progress });
  let native: NativeConnection | undefined;
  return {
    client: opened.client,
    namespace: opened.namespace,
    settings,
    store,
    async workerConnection(runtime?: CliRuntimeOptions) {
      if (native) return native;
      // Only here: an installed runtime with nothing to close would keep the process alive.
      (await import('./worker-runtime.js')).installCliRuntime(process.env, runtime);
      native = (await connectNativeConnection(settings, { onProgress: progress })).connection;
      // The embedded server may have been started by an older `dar`, before the jobs' search
      // attributes existed; it is ours, so they are added here. A cluster's are checked by the
      // worker, which names the commands that register them.
      if (settings.kind === 'embedded') {
        await registerMissingSearchAttributes(native, opened.namespace);
      }
      return native;
    },
    async close() {
      await native?.close();
      await opened.connection.close();
      await store.close();
      // Spans still buffered are sent before the command exits (waited for a few seconds at most).
      if (tracingRequested()) {
        const tracing = (await import('../tracing/agent-tracing.js')).tracingFromEnvironment();
        const problem = await tracing.shutdown();
        if (problem)
          process.stderr.write(`Tracing: some spans may not have been sent: ${problem}\n`);
      }
    },
  };
}
