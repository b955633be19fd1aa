import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { constants } from 'node:os';
import { DEV_SERVER_HOST, DEV_SERVER_NAMESPACE } from './dev-server-command.js';
import {
  devServerPaths,
  readServerRecord,
  removeServerRecord,
  writeSavedPorts,
  writeServerRecord,
  type DevServerPaths,
  type DevServerRecord,
} from './dev-server-files.js';
import {
  DevServerError,
  launchDevServer,
  type ExitStatus,
  type LaunchedServer,
} from './dev-server-launch.js';
import { acceptsConnections } from './ports.js';
import {
  isProcessAlive,
  processArguments,
  signalGroup,
  terminateProcessGroup,
} from './process-liveness.js';
import { withStateLock } from './state-lock.js';
import { obtainTemporalBinary } from './temporal-download.js';

export { DevServerError } from './dev-server-launch.js';
export { devServerSearchAttributeArgs } from './dev-server-command.js';

export interface DevServerOptions {
  /** The state folder: database, log, `server.json`. Created when missing. */
  stateDir: string;
  /** Progress lines for a human ("Starting the Temporal dev server on ..."). */
  onProgress?: ((message: string) => void) | undefined;
  /** How long a starting server may take to answer. Default 30 s. */
  readyTimeoutMs?: number;
  /** Where to look for the Temporal CLI (`TEMPORAL_CLI_PATH`, `PATH`). Default `process.env`. */
  environment?: NodeJS.ProcessEnv;
}

/** Where the embedded server answers. */
export interface DevServerEndpoint {
  /** gRPC frontend, `127.0.0.1:<port>`. */
  address: string;
  namespace: string;
  /** The Web UI, `127.0.0.1:<uiPort>` (like `address`, without a scheme: open it over http). */
  uiAddress: string;
  pid: number;
  /** True when this call started it, false when it was already running. */
  started: boolean;
}

const DEFAULT_READY_TIMEOUT_MS = 30_000;

/**
 * Makes sure the embedded Temporal dev server for `stateDir` runs and answers, and says where.
 * A server recorded in `<stateDir>/server.json` is reused when its process is alive and its port
 * accepts connections. Otherwise a new one is started on `<stateDir>/temporal.db`, detached (it
 * outlives this process; its output goes to `<stateDir>/server.log`) and recorded. Concurrent
 * calls for one state folder, from any process, are serialised by `<stateDir>/server.lock`.
 * Throws a {@link DevServerError} quoting the log when a new server does not come up.
 */
export async function ensureDevServer(options: DevServerOptions): Promise<DevServerEndpoint> {
  const paths = devServerPaths(options.stateDir);
  mkdirSync(paths.stateDir, { recursive: true });
  return withStateLock(paths.lockFile, async () => {
    const running = await findRunningRecord(paths);
    if (running) return endpointOf(running, false);
    await retireRecordedServer(paths);
    const launched = await launchDevServer({
      paths,
      binaryPath: await obtainBinary(paths, options),
      output: 'log',
      keepAlive: false,
      readyTimeoutMs: options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS,
      onProgress: options.onProgress,
    });
    record(paths, launched.record);
    return endpointOf(launched.record, true);
  });
}

/**
 * The running embedded server of `stateDir`, or undefined. Reads only; starts nothing.
 */
export async function findRunningDevServer(
  stateDir: string,
): Promise<DevServerEndpoint | undefined> {
  const running = await findRunningRecord(devServerPaths(stateDir));
  return running ? endpointOf(running, false) : undefined;
}

/**
 * Stops the embedded server of `stateDir` (SIGTERM to its process group, SIGKILL after 10 s),
 * waits for it to exit and removes `server.json`. Resolves whether one was running. Its
 * database and saved ports stay, so the next start resumes its workflows on the same ports.
 */
export async function stopDevServer(stateDir: string): Promise<boolean> {
  const paths = devServerPaths(stateDir);
  if (!existsSync(paths.stateDir)) return false;
  return withStateLock(paths.lockFile, async () => {
    const recorded = readServerRecord(paths);
    const running = recorded !== undefined && isRecordedProcess(recorded);
    if (running) await terminateProcessGroup(recorded.pid);
    removeServerRecord(paths);
    return running;
  });
}

export interface ForegroundOptions extends Omit<DevServerOptions, 'stateDir'> {
  /** Called once the server answers. */
  onReady?: (endpoint: DevServerEndpoint) => void;
  /** Where its output goes: this terminal (default) or `<stateDir>/server.log`. */
  output?: 'inherit' | 'log';
}

/**
 * Runs the embedded server of `stateDir` in the foreground (for `dar server`): output on this
 * terminal (or in server.log), SIGINT and SIGTERM forwarded to it, recorded in `server.json` while it runs so that
 * other `dar` commands use it. Resolves with its exit code (128 + signal number when killed by a
 * signal). Throws when a server already runs for `stateDir` or when it does not come up.
 */
export async function runDevServerForeground(
  stateDir: string,
  options: ForegroundOptions = {},
): Promise<number> {
  const paths = devServerPaths(stateDir);
  mkdirSync(paths.stateDir, { recursive: true });
  let child: ChildProcess | undefined;
  let childExited: Promise<ExitStatus> | undefined;
  let receivedSignal: NodeJS.Signals | undefined;
  const forward = (signal: NodeJS.Signals) => {
    receivedSignal = signal;
    if (child?.pid !== undefined) signalGroup(child.pid, signal);
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];
  for (const signal of signals) process.on(signal, forward);
  try {
    let launched: LaunchedServer;
    try {
      launched = await withStateLock(paths.lockFile, async () => {
        const running = await findRunningRecord(paths);
        if (running) {
          throw new DevServerError(
            `A Temporal dev server for ${paths.stateDir} already runs (pid ${running.pid}, ` +
              `${DEV_SERVER_HOST}:${running.port}); stop it first`,
          );
        }
        await retireRecordedServer(paths);
        const started = await launchDevServer({
          paths,
          binaryPath: await obtainBinary(paths, options),
          output: options.output ?? 'inherit',
          keepAlive: true,
          readyTimeoutMs: options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS,
          onProgress: options.onProgress,
          onSpawn: (spawned, exited) => {
            child = spawned;
            childExited = exited;
            // A Ctrl-C while we were still preparing also stops the server.
            if (receivedSignal && spawned.pid !== undefined) {
              signalGroup(spawned.pid, receivedSignal);
            }
          },
        });
        record(paths, started.record);
        return started;
      });
    } catch (error) {
      // Interrupted while starting: the server's exit is the outcome, not an error.
      if (receivedSignal && childExited) return exitCodeOf(await childExited);
      throw error;
    }
    options.onReady?.(endpointOf(launched.record, true));
    return exitCodeOf(await launched.exited);
  } finally {
    for (const signal of signals) process.off(signal, forward);
    // Only our own record: a later `dar` may already have started a replacement.
    const recorded = readServerRecord(paths);
    if (recorded && recorded.pid === child?.pid && !isProcessAlive(recorded.pid)) {
      removeServerRecord(paths);
    }
  }
}

/** The record of a server that is ours, alive and accepting connections. */
async function findRunningRecord(paths: DevServerPaths): Promise<DevServerRecord | undefined> {
  const recorded = readServerRecord(paths);
  if (!recorded || !isRecordedProcess(recorded)) return undefined;
  return (await acceptsConnections(recorded.port, DEV_SERVER_HOST)) ? recorded : undefined;
}

/**
 * Clears a record that is not a usable server. A recorded server whose process lives but whose
 * port does not answer is hung or half-stopped: it is stopped, so that two servers never share
 * the database.
 */
async function retireRecordedServer(paths: DevServerPaths): Promise<void> {
  const recorded = readServerRecord(paths);
  if (recorded && isRecordedProcess(recorded)) await terminateProcessGroup(recorded.pid);
  removeServerRecord(paths);
}

/**
 * Whether the recorded pid is still our server: alive, and (where the command line can be read)
 * running on this database, not an unrelated process that got the pid after a reboot.
 */
function isRecordedProcess(recorded: DevServerRecord): boolean {
  if (!isProcessAlive(recorded.pid)) return false;
  const args = processArguments(recorded.pid);
  return args === undefined || args.includes(recorded.databaseFile);
}

async function obtainBinary(
  paths: DevServerPaths,
  options: Pick<DevServerOptions, 'environment' | 'onProgress'>,
): Promise<string> {
  return obtainTemporalBinary(paths.binaryDir, {
    environment: options.environment ?? process.env,
    onProgress: options.onProgress,
  });
}

function record(paths: DevServerPaths, server: DevServerRecord): void {
  writeServerRecord(paths, server);
  writeSavedPorts(paths, { port: server.port, uiPort: server.uiPort });
}

function endpointOf(server: DevServerRecord, started: boolean): DevServerEndpoint {
  return {
    address: `${DEV_SERVER_HOST}:${server.port}`,
    namespace: DEV_SERVER_NAMESPACE,
    uiAddress: `${DEV_SERVER_HOST}:${server.uiPort}`,
    pid: server.pid,
    started,
  };
}

function exitCodeOf(status: ExitStatus): number {
  if (status.code !== null) return status.code;
  const signalNumber = status.signal ? constants.signals[status.signal] : undefined;
  return signalNumber !== undefined ? 128 + signalNumber : 1;
}
