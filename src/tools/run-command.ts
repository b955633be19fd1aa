import { spawn } from 'node:child_process';
import { commandEnvironment } from './command-environment.js';
import { OutputTail } from './output-tail.js';
import { killProcessGroup } from './process-group.js';
import { guardProcessGroup } from './process-guardian.js';

/** Characters of combined output kept (the last ones). */
export const MAX_OUTPUT_CHARACTERS = 50_000;
const HEARTBEAT_INTERVAL_MS = 1000;
/**
 * After the shell exited, how long to wait for its output pipes to close. A background job
 * (`server &`) inherits them and may keep them open for ever; the shell's own output is in.
 */
const OUTPUT_DRAIN_MS = 250;

export interface CommandRun {
  command: string;
  cwd: string;
  timeoutMs: number;
  signal: AbortSignal;
  heartbeat: () => void;
  /** Hears the combined output as it comes, in chunks. Must not throw. */
  onOutput?: (chunk: string) => void;
}

export interface CommandOutcome {
  /** Null when the shell was ended by a signal. */
  exitCode: number | null;
  exitSignal: NodeJS.Signals | null;
  /** Set when the run was stopped from outside; the process group is gone by then. */
  stoppedBy?: 'abort' | 'timeout';
  output: string;
  outputTruncated: boolean;
}

/**
 * Runs `bash -c command` in its own process group and collects stdout and stderr together. On
 * abort or timeout the whole group is killed before this resolves; if the worker dies while the
 * command runs, a guardian process ends the group (see `guardProcessGroup`).
 */
export async function runCommand(run: CommandRun): Promise<CommandOutcome> {
  // The outer shell replaces itself with the one that runs the command, stderr joined to
  // stdout: one pipe keeps the two in the order they were written.
  const child = spawn('bash', ['-c', 'exec bash -c -- "$1" 2>&1', 'bash', run.command], {
    cwd: run.cwd,
    env: commandEnvironment(),
    detached: true, // its own process group, so that stopping it reaches every descendant
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const releaseGuardian = child.pid === undefined ? () => undefined : guardProcessGroup(child.pid);
  const output = new OutputTail(MAX_OUTPUT_CHARACTERS);
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    output.append(chunk);
    run.onOutput?.(chunk);
  });

  let stoppedBy: CommandOutcome['stoppedBy'];
  let killing: Promise<void> | undefined;
  const stop = (reason: 'abort' | 'timeout') => {
    if (stoppedBy || child.pid === undefined) return;
    stoppedBy = reason;
    killing = killProcessGroup(child.pid);
  };
  const onAbort = () => stop('abort');
  run.signal.addEventListener('abort', onAbort, { once: true });
  const timeout = setTimeout(() => stop('timeout'), run.timeoutMs);
  const heartbeats = setInterval(run.heartbeat, HEARTBEAT_INTERVAL_MS);

  try {
    const outputClosed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
      (resolve, reject) => {
        child.once('error', reject);
        child.once('exit', (code, signal) => resolve({ code, signal }));
      },
    );
    let drainTimer: NodeJS.Timeout | undefined;
    await Promise.race([
      outputClosed,
      new Promise((resolve) => (drainTimer = setTimeout(resolve, OUTPUT_DRAIN_MS))),
    ]);
    clearTimeout(drainTimer);
    child.stdout.destroy();
    // No stop may start once the shell is done: a kill begun now would be awaited by no one.
    clearTimeout(timeout);
    run.signal.removeEventListener('abort', onAbort);
    await killing;
    return {
      exitCode: exit.code,
      exitSignal: exit.signal,
      stoppedBy,
      output: output.text(),
      outputTruncated: output.truncated,
    };
  } finally {
    releaseGuardian();
    clearTimeout(timeout);
    clearInterval(heartbeats);
    run.signal.removeEventListener('abort', onAbort);
  }
}
