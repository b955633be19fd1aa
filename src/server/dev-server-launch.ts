import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, closeSync, openSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEV_SERVER_HOST, DEV_SERVER_NAMESPACE, devServerArguments } from './dev-server-command.js';
import {
  readSavedPorts,
  type DevServerPaths,
  type DevServerPorts,
  type DevServerRecord,
} from './dev-server-files.js';
import { waitForFrontend } from './dev-server-readiness.js';
import { choosePorts } from './dev-server-ports.js';
import { withStateLock } from './state-lock.js';
import { isProcessAlive, terminateProcessGroup } from './process-liveness.js';

/** The embedded server could not be started; the message says why, with its log's tail. */
export class DevServerError extends Error {
  override name = 'DevServerError';
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface LaunchOptions {
  paths: DevServerPaths;
  binaryPath: string;
  /** `log`: appended to server.log. `inherit`: this process's terminal. */
  output: 'log' | 'inherit';
  /** False: the server outlives this process, which does not wait for it (`unref`). */
  keepAlive: boolean;
  readyTimeoutMs: number;
  onProgress?: ((message: string) => void) | undefined;
  /** Called right after each spawn (a start may be retried), e.g. to forward signals to it. */
  onSpawn?: ((child: ChildProcess, exited: Promise<ExitStatus>) => void) | undefined;
}

export interface LaunchedServer {
  child: ChildProcess;
  record: DevServerRecord;
  exited: Promise<ExitStatus>;
}

/** How many log lines a start failure quotes. */
const LOG_TAIL_LINES = 25;

/**
 * Starts `temporal server start-dev` in its own process group and resolves once its frontend
 * answers (see {@link waitForFrontend}). Ports: the saved ones, else 7233/8233, each only when
 * free, else random free ones; when the server still loses a race for a port (to a program other
 * than `dar`), it is retried once on fresh random ports. On failure the process group is stopped
 * and a {@link DevServerError} quotes the tail of what the server wrote.
 */
export async function launchDevServer(options: LaunchOptions): Promise<LaunchedServer> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      // Port choice and start-up are serialised across all state folders: two starts picking
      // the same free port at once would otherwise let the loser's readiness check reach the
      // winner's server and take it (and its database) for its own.
      return await withStateLock(portSelectionLockFile(), async () => {
        const ports =
          attempt === 1
            ? await choosePorts(readSavedPorts(options.paths))
            : await choosePorts(undefined, false);
        return launchOnce(options, ports);
      });
    } catch (error) {
      if (!(error instanceof PortConflict)) throw error;
      if (attempt >= 2) throw error.failure;
      options.onProgress?.(`${error.message}; retrying on other ports`);
    }
  }
}

/** One per user (a lock left by another user could not be removed). */
function portSelectionLockFile(): string {
  return join(tmpdir(), `dar-dev-server-start-${process.getuid?.() ?? 'user'}.lock`);
}

/** Thrown inside {@link launchDevServer} when the failure looks like a lost port race. */
class PortConflict extends Error {
  constructor(
    readonly ports: DevServerPorts,
    readonly failure: DevServerError,
  ) {
    super(`Port ${ports.port} or ${ports.uiPort} was taken`);
  }
}

async function launchOnce(options: LaunchOptions, ports: DevServerPorts): Promise<LaunchedServer> {
  const { paths, binaryPath, output, readyTimeoutMs } = options;
  const address = `${DEV_SERVER_HOST}:${ports.port}`;
  const logOffset = output === 'log' ? prepareLog(paths.logFile) : 0;
  options.onProgress?.(
    `Starting the Temporal dev server on ${address} (UI port ${ports.uiPort}, database ${paths.databaseFile})`,
  );
  const startedAt = Date.now();
  const child = spawnServer(options, ports);
  let status: ExitStatus | undefined;
  let spawnError: Error | undefined;
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once('exit', (code, signal) => resolve((status = { code, signal })));
    child.once('error', (error) => {
      spawnError = error;
      resolve((status = { code: null, signal: null }));
    });
  });
  options.onSpawn?.(child, exited);

  const abandonReason = () => {
    if (spawnError) return `it could not be run: ${spawnError.message}`;
    if (status) return `it exited (${describeExit(status)}) before it was ready`;
    return undefined;
  };
  try {
    await waitForFrontend({
      host: DEV_SERVER_HOST,
      port: ports.port,
      namespace: DEV_SERVER_NAMESPACE,
      timeoutMs: readyTimeoutMs,
      abandonReason,
    });
    // What answered must be our process, not something else that held the port.
    const lateReason = abandonReason();
    if (lateReason) throw new Error(lateReason);
  } catch (error) {
    if (child.pid !== undefined && isProcessAlive(child.pid)) {
      await terminateProcessGroup(child.pid, 5_000);
    }
    const reason = error instanceof Error ? error.message : String(error);
    const tail = output === 'log' ? readLogTail(paths.logFile, logOffset) : '';
    const failure = new DevServerError(
      `The Temporal dev server (${binaryPath}, ${address}) did not start: ${reason}.` +
        (output === 'log'
          ? tail
            ? `\nLast lines of ${paths.logFile}:\n${tail}`
            : `\n${paths.logFile} is empty.`
          : ' See its output above.'),
    );
    if (/address already in use|bind: /i.test(tail)) throw new PortConflict(ports, failure);
    throw failure;
  }

  options.onProgress?.(
    `Temporal dev server ready on ${address} in ${Date.now() - startedAt} ms (UI http://${DEV_SERVER_HOST}:${ports.uiPort})`,
  );
  if (child.pid === undefined) throw new DevServerError(`${binaryPath} has no process id`);
  const record: DevServerRecord = {
    pid: child.pid,
    port: ports.port,
    uiPort: ports.uiPort,
    binaryPath,
    databaseFile: paths.databaseFile,
    startedAt: new Date(startedAt).toISOString(),
  };
  return { child, record, exited };
}

function spawnServer(options: LaunchOptions, ports: DevServerPorts): ChildProcess {
  const { paths, binaryPath, output, keepAlive } = options;
  const log = output === 'log' ? openSync(paths.logFile, 'a') : undefined;
  try {
    // Own process group (detached): stopping it reaches everything it started, and a Ctrl-C in
    // the terminal reaches `dar` only, which decides what to forward.
    const child = spawn(binaryPath, devServerArguments(paths.databaseFile, ports), {
      cwd: paths.stateDir,
      detached: true,
      stdio: log === undefined ? 'inherit' : ['ignore', log, log],
    });
    if (!keepAlive) child.unref();
    return child;
  } finally {
    if (log !== undefined) closeSync(log);
  }
}

/** Marks the start in the log and returns where this start's output begins. */
function prepareLog(logFile: string): number {
  appendFileSync(
    logFile,
    `--- dar: starting the Temporal dev server at ${new Date().toISOString()}\n`,
  );
  return statSync(logFile).size;
}

function readLogTail(logFile: string, fromOffset: number): string {
  let text: string;
  try {
    text = readFileSync(logFile).subarray(fromOffset).toString('utf8');
  } catch {
    return '';
  }
  const lines = text.split('\n').filter((line) => line.trim().length > 0);
  return lines
    .slice(-LOG_TAIL_LINES)
    .map((line) => `  ${line}`)
    .join('\n');
}

export function describeExit(status: ExitStatus): string {
  return status.signal ? `signal ${status.signal}` : `exit code ${status.code ?? 'unknown'}`;
}
