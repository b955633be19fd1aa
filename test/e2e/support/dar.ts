import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (where `bin/dar.js` and `examples/` are). */
/**
 * The repository: the first folder with a package.json from three levels up (this file also
 * runs compiled into .bench-build/, one level further down, for the cluster benchmark).
 */
function repositoryRoot(): string {
  let folder = fileURLToPath(new URL('../../..', import.meta.url));
  while (!existsSync(join(folder, 'package.json')) && dirname(folder) !== folder) {
    folder = dirname(folder);
  }
  return folder;
}

export const REPO_ROOT = repositoryRoot();
export const DAR_BIN = join(REPO_ROOT, 'bin', 'dar.js');

/** What a finished `dar` process left behind. */
export interface DarResult {
  /** Exit code; null when it was ended by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Wall time from spawn to exit. */
  ms: number;
  /** True when the helper killed it because it outlived its timeout. */
  timedOut: boolean;
}

export interface DarOptions {
  /** Sets DAR_STATE_DIR (the commands' `--state-dir` can be given in `args` instead). */
  stateDir?: string;
  /** Default: the repository root, so that `scripted:examples/...` resolves like in the README. */
  cwd?: string;
  /** Extra environment variables. */
  env?: Record<string, string>;
  /** The process is SIGKILLed after this long and the result says `timedOut`. Default 60 s. */
  timeoutMs?: number;
}

/** Every `dar` child still running, for {@link killLeftoverDars}. */
const running = new Set<DarProcess>();

/**
 * The environment of a `dar` child: this one's, without anything that would point it at another
 * Temporal (TEMPORAL_ADDRESS, TLS, API key, namespace) or another state folder or task queue.
 * TEMPORAL_CLI_PATH stays: it says where the Temporal binary is, not which server to use.
 */
export function darEnvironment(options: DarOptions = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('TEMPORAL_') && key !== 'TEMPORAL_CLI_PATH') continue;
    if (key === 'DAR_STATE_DIR' || key === 'DAR_TASK_QUEUE' || key === 'DAR_LOG_LEVEL') continue;
    env[key] = value;
  }
  if (options.stateDir !== undefined) env.DAR_STATE_DIR = options.stateDir;
  return { ...env, ...options.env };
}

/** A running `node bin/dar.js ...` with its output collected as it comes. */
export class DarProcess {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  /** Resolves when the process exited (never rejects). */
  readonly done: Promise<DarResult>;
  private exited = false;

  constructor(
    readonly args: string[],
    options: DarOptions = {},
  ) {
    const started = Date.now();
    this.child = spawn(process.execPath, [DAR_BIN, ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: darEnvironment(options),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.add(this);
    this.child.stdout?.setEncoding('utf8');
    this.child.stderr?.setEncoding('utf8');
    this.child.stdout?.on('data', (chunk: string) => (this.stdout += chunk));
    this.child.stderr?.on('data', (chunk: string) => (this.stderr += chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      this.child.kill('SIGKILL');
    }, options.timeoutMs ?? 60_000);
    this.done = new Promise<DarResult>((resolve) => {
      // 'close' waits for the output pipes too, so stdout and stderr are complete.
      this.child.once('close', (code, signal) => {
        clearTimeout(timer);
        this.exited = true;
        running.delete(this);
        resolve({
          code,
          signal,
          stdout: this.stdout,
          stderr: this.stderr,
          ms: Date.now() - started,
          timedOut,
        });
      });
      this.child.once('error', (error) => {
        this.stderr += `spawn error: ${error.message}\n`;
      });
    });
  }

  get pid(): number {
    if (this.child.pid === undefined) throw new Error(`dar ${this.args.join(' ')} has no pid`);
    return this.child.pid;
  }

  get isRunning(): boolean {
    return !this.exited;
  }

  /** Sends a signal to this process only (not to anything it started). */
  signal(signal: NodeJS.Signals): void {
    if (!this.exited) this.child.kill(signal);
  }
}

/** Starts `dar ARGS` in the background. */
export function startDar(args: string[], options: DarOptions = {}): DarProcess {
  return new DarProcess(args, options);
}

/** Runs `dar ARGS` to its end. */
export function dar(args: string[], options: DarOptions = {}): Promise<DarResult> {
  return startDar(args, options).done;
}

/** SIGKILLs every `dar` child of this test file that still runs, and waits for them. */
export async function killLeftoverDars(): Promise<void> {
  const leftovers = [...running];
  for (const process of leftovers) process.signal('SIGKILL');
  await Promise.all(leftovers.map((process) => process.done));
}

/** For failure messages: what a result said. */
export function describeResult(result: DarResult): string {
  return (
    `exit ${result.code ?? result.signal}${result.timedOut ? ' (timed out)' : ''} after ${result.ms} ms\n` +
    `--- stdout\n${result.stdout}--- stderr\n${result.stderr}`
  );
}

/** Non-empty lines of an output. */
export function linesOf(text: string): string[] {
  return text.split('\n').filter((line) => line.trim() !== '');
}

/** Writes a timing line when DAR_E2E_TIMINGS is set (kept out of normal test output). */
export function reportTiming(label: string, ms: number): void {
  if (process.env.DAR_E2E_TIMINGS) process.stderr.write(`[e2e timing] ${label}: ${ms} ms\n`);
}
