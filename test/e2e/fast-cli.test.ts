/**
 * A fast, clean `dar` (issue 14, issue 9): `dar --help` loads no command; `dar run --json` keeps
 * stdout for JSON (Temporal's log lines go to stderr); `dar events` on a finished job reads the
 * job store alone, with no worker, no Temporal server and no Temporal code loaded. Nothing here
 * is timed: `npm run bench` measures the start-up times.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { commands } from '../../src/cli/command-table.js';
import { dar, killLeftoverDars } from './support/dar.js';
import { expectExit } from './support/expect-exit.js';
import { finalTurn, makeTempDir, removeDir, writeScript } from './support/files.js';
import { parseJsonLines } from './support/jobs.js';
import { importedPackages, moduleTraceEnvironment } from './support/module-trace.js';
import { readServerJson, stopServer } from './support/temporal.js';

const root = makeTempDir('fast-cli');
const stateDir = join(root, 'state');
const workspace = join(root, 'workspace');
const taskQueue = `fast-cli-${process.pid}`;
/** Packages that only talking to Temporal, running jobs or checking input needs. */
const HEAVY_PACKAGES = [
  '@temporalio/client',
  '@temporalio/worker',
  '@temporalio/workflow',
  '@temporalio/proto',
  '@mariozechner/pi-ai',
  'pg',
  'ajv',
];

function heavyPackagesIn(traceFile: string): string[] {
  const imported = importedPackages(traceFile);
  return HEAVY_PACKAGES.filter((name) => imported.has(name));
}

beforeAll(() => {
  mkdirSync(workspace, { recursive: true });
});

afterAll(async () => {
  await killLeftoverDars();
  await stopServer(stateDir);
  removeDir(root);
});

test('dar --help lists every command and loads none of them (no Temporal, store driver or provider code)', async () => {
  const trace = join(root, 'help-modules.txt');
  const help = await dar(['--help'], { env: moduleTraceEnvironment(trace) });
  expectExit(help, 0);
  for (const command of Object.values(commands)) expect(help.stdout).toContain(command.usage);
  expect(heavyPackagesIn(trace)).toEqual([]);

  // One command's help comes from the same table, without loading the command.
  const runHelp = await dar(['run', '--help'], { env: moduleTraceEnvironment(trace) });
  expectExit(runHelp, 0);
  expect(runHelp.stdout).toContain('--keep-open DURATION');
  expect(heavyPackagesIn(trace)).toEqual([]);
});

test('dar run --json prints only JSON on stdout with Temporal logging at DEBUG; dar events then reads the finished job with no worker, no server and no Temporal code', async () => {
  const script = writeScript(root, 'short.json', [
    {
      content: [{ type: 'toolCall', id: 'list', name: 'ls', arguments: {} }],
      stopReason: 'toolUse',
    },
    finalTurn('Listed.'),
  ]);
  const jobId = `fast-cli-job-${process.pid}`;
  const run = await dar(
    [
      'run',
      'list the folder',
      '--id',
      jobId,
      '--json',
      '--model',
      `scripted:${script}`,
      '--workspace',
      workspace,
      '--state-dir',
      stateDir,
    ],
    // DEBUG makes the SDK and its native core log plenty (connections, polls, tasks).
    { env: { DAR_TASK_QUEUE: taskQueue, DAR_LOG_LEVEL: 'DEBUG' }, timeoutMs: 120_000 },
  );
  expectExit(run, 0);
  const runEvents = parseJsonLines(run.stdout); // throws on the first line that is not JSON
  expect(runEvents.map((event) => event.seq)).toEqual(runEvents.map((_, index) => index + 1));
  expect(runEvents.at(-1)?.type).toBe('agent_end');
  // The log lines exist, on stderr: the core's (forwarded) and the worker's.
  expect(run.stderr).toMatch(/\[DEBUG\].*sdkComponent: 'core'/s);
  expect(run.stderr).toMatch(/\[(DEBUG|INFO)\].*sdkComponent: 'worker'/s);

  // No server and no worker: a current job's finished stream is in the store.
  expectExit(await stopServer(stateDir), 0);
  expect(readServerJson(stateDir)).toBeUndefined();
  const trace = join(root, 'events-modules.txt');
  const events = await dar(['events', jobId, '--json', '--state-dir', stateDir], {
    env: { DAR_TASK_QUEUE: `${taskQueue}-unused`, ...moduleTraceEnvironment(trace) },
  });
  expectExit(events, 0);
  expect(parseJsonLines(events.stdout)).toEqual(runEvents);
  expect(events.stderr).toBe('');
  expect(readServerJson(stateDir)).toBeUndefined();
  expect(heavyPackagesIn(trace)).toEqual([]);

  // The human form, a later part, and --follow (which ends at agent_end) read the same way.
  const human = await dar(['events', jobId, '--state-dir', stateDir]);
  expectExit(human, 0);
  expect(human.stdout).toContain('  > ls');
  expect(human.stdout).toContain('assistant: Listed.');
  expect(human.stdout.trim().split('\n').at(-1)).toBe('agent finished');
  const after = await dar(['events', jobId, '--json', '--after', '3', '--follow'], { stateDir });
  expectExit(after, 0);
  expect(parseJsonLines(after.stdout)).toEqual(runEvents.slice(3));
  expect(readServerJson(stateDir)).toBeUndefined();

  // A command that asks Temporal but runs no worker loads the client, not the worker.
  const statusTrace = join(root, 'status-modules.txt');
  const status = await dar(['status', jobId, '--json', '--state-dir', stateDir], {
    env: moduleTraceEnvironment(statusTrace),
    timeoutMs: 90_000,
  });
  expectExit(status, 0);
  expect(JSON.parse(status.stdout)).toMatchObject({ workflowStatus: 'COMPLETED', phase: 'done' });
  const loaded = importedPackages(statusTrace);
  expect(loaded.has('@temporalio/client')).toBe(true);
  expect(
    ['@temporalio/worker', '@mariozechner/pi-ai', 'pg'].filter((name) => loaded.has(name)),
  ).toEqual([]);
}, 180_000);

test('dar events on a job the store does not know still asks Temporal and names the missing job', async () => {
  const missing = await dar(['events', 'no-such-job', '--state-dir', stateDir], {
    timeoutMs: 90_000,
  });
  expectExit(missing, 2);
  expect(missing.stderr).toContain('No job with id no-such-job');
}, 120_000);
