// `dar` start-up: wall time of whole `dar` processes, against a bare `node` start on the same
// machine. `dar events` reads a finished job with no worker and the dev server stopped.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, percentile, round } from './statistics.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DAR = join(REPO_ROOT, 'bin', 'dar.js');

export interface CliStartupRow {
  command: string;
  medianMs: number;
  p95Ms: number;
  runs: number;
}

function timed(args: string[], expectedCode = 0): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { cwd: REPO_ROOT, encoding: 'utf8' });
  const ms = performance.now() - started;
  if (result.status !== expectedCode) {
    throw new Error(`${args.join(' ')} exited ${result.status}:\n${result.stdout}${result.stderr}`);
  }
  return ms;
}

function row(command: string, args: string[], runs: number): CliStartupRow {
  const times = Array.from({ length: runs }, () => timed(args));
  return {
    command,
    medianMs: round(median(times), 0),
    p95Ms: round(percentile(times, 0.95), 0),
    runs,
  };
}

export function benchCliStartup(runs: number): CliStartupRow[] {
  const folder = mkdtempSync(join(tmpdir(), 'dar-bench-cli-'));
  const stateDir = join(folder, 'state');
  const workspace = join(folder, 'workspace');
  cpSync(join(REPO_ROOT, 'examples', 'workspace'), workspace, { recursive: true });
  try {
    const jobId = 'bench-cli-job';
    // A finished job of the demo script (4 turns, 36 events), then no server and no worker.
    timed([
      DAR,
      'run',
      'Fix the typo',
      '--id',
      jobId,
      '--json',
      '--model',
      'scripted:examples/demo-script.json',
      '--workspace',
      workspace,
      '--state-dir',
      stateDir,
    ]);
    timed([DAR, 'server', 'stop', '--state-dir', stateDir]);
    return [
      row('node -e 0 (process start, for reference)', ['-e', '0'], runs),
      row('dar --help', [DAR, '--help'], runs),
      row('dar run --help', [DAR, 'run', '--help'], runs),
      row(
        'dar events ID (finished job, no worker, server stopped)',
        [DAR, 'events', jobId, '--state-dir', stateDir],
        runs,
      ),
      row(
        'dar events ID --json (same)',
        [DAR, 'events', jobId, '--json', '--state-dir', stateDir],
        runs,
      ),
    ];
  } finally {
    spawnSync(process.execPath, [DAR, 'server', 'stop', '--state-dir', stateDir], {
      cwd: REPO_ROOT,
    });
    rmSync(folder, { recursive: true, force: true });
  }
}
