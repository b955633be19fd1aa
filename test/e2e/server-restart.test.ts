/**
 * The embedded server stopped in the middle of a job, through the CLI: `dar server stop`, then
 * the next `dar` command starts it again on the same database and ports. The running
 * `dar worker` reconnects by itself and the job finishes with every turn exactly once.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dar, killLeftoverDars, reportTiming, startDar } from './support/dar.js';
import { expectExit } from './support/expect-exit.js';
import { bashTurn, finalTurn, makeTempDir, removeDir, writeScript } from './support/files.js';
import { jobEvents, jobStatus, waitForCompletedJob } from './support/jobs.js';
import { isRunning } from './support/processes.js';
import {
  connectToEmbeddedServer,
  jobResult,
  readHistory,
  readServerJson,
  stopServer,
} from './support/temporal.js';
import { sleep, waitFor } from './support/wait.js';
import { MODEL_CALL_ACTIVITIES } from '../../src/workflows/model-call-activities.js';

const root = makeTempDir('restart');
const stateDir = join(root, 'state');
const workspace = join(root, 'workspace');
const jobId = `restart-${process.pid}`;
/** Every command here finds its state folder through DAR_STATE_DIR. */
const options = { stateDir };
const TURN_DELAY_MS = 1500;

function turnsLog(): string[] {
  try {
    return readFileSync(join(workspace, 'turns.log'), 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

beforeAll(() => {
  mkdirSync(workspace);
});

afterAll(async () => {
  await killLeftoverDars();
  await stopServer(stateDir);
  expect(readServerJson(stateDir)).toBeUndefined();
  removeDir(root);
});

test('a job survives dar server stop and the automatic restart: every turn exactly once, events contiguous', async () => {
  const script = writeScript(root, 'script.json', [
    bashTurn('turn-1', 'echo turn-1 >> turns.log', TURN_DELAY_MS),
    bashTurn('turn-2', 'echo turn-2 >> turns.log', TURN_DELAY_MS),
    bashTurn('turn-3', 'echo turn-3 >> turns.log', TURN_DELAY_MS),
    finalTurn('Three turns done.', TURN_DELAY_MS),
  ]);
  const start = await dar(
    ['run', 'three turns', '--detach', '--id', jobId, '--model', `scripted:${script}`],
    { ...options, cwd: workspace },
  );
  expectExit(start, 0);
  expect(start.stdout).toBe(`${jobId}\n`);

  const worker = startDar(['worker'], { ...options, timeoutMs: 170_000 });
  await waitFor(
    'the first turn to finish',
    () => {
      if (!worker.isRunning) throw new Error(`The worker exited:\n${worker.stderr}`);
      return turnsLog().includes('turn-1');
    },
    { timeoutMs: 90_000 },
  );

  const before = readServerJson(stateDir);
  expect(before).toBeDefined();
  const stop = await stopServer(stateDir);
  expectExit(stop, 0);
  expect(stop.stdout).toBe(`Stopped the dev server of ${stateDir}\n`);
  expect(isRunning(before!.pid)).toBe(false);
  expect(readServerJson(stateDir)).toBeUndefined();
  const stoppedAt = Date.now();
  await sleep(1000);

  // What a user does next: any command, here `dar status`, starts the server again.
  const restartedStatus = await dar(['status', jobId, '--json'], { ...options, timeoutMs: 90_000 });
  reportTiming('restart: dar status that restarted the server', restartedStatus.ms);
  expectExit(restartedStatus, 0);
  expect(restartedStatus.stderr).toContain('Starting the Temporal dev server');
  const after = readServerJson(stateDir);
  expect(after?.pid).not.toBe(before!.pid);
  // The user learns that the server outlives the command, and how to stop it.
  expect(restartedStatus.stderr).toContain(
    `It keeps running in the background (pid ${after?.pid}) for this state folder's later commands and jobs; \`dar server stop\` stops it`,
  );
  // Same database and same ports: the worker's connection finds the server where it was.
  expect({ port: after?.port, db: after?.databaseFile }).toEqual({
    port: before!.port,
    db: before!.databaseFile,
  });
  // The worker was not restarted: it outlived the outage and reconnected.
  expect(worker.isRunning).toBe(true);

  const status = await waitForCompletedJob(jobId, options, 60_000);
  reportTiming('restart: job completed after the server was stopped', Date.now() - stoppedAt);
  expect(status.turns).toBe(4);
  expect(worker.isRunning).toBe(true);

  // Each turn's tool ran once, in order.
  expect(turnsLog()).toEqual(['turn-1', 'turn-2', 'turn-3']);

  const { client, close } = await connectToEmbeddedServer(stateDir);
  try {
    const result = await jobResult(client, stateDir, jobId);
    expect(result.messages.map((message) => message.role)).toEqual([
      'user',
      ...['assistant', 'toolResult', 'assistant', 'toolResult', 'assistant', 'toolResult'],
      'assistant',
    ]);
    expect(result.messages.filter((message) => 'isError' in message && message.isError)).toEqual(
      [],
    );
    // No activity needed a second attempt, and there was one model call per turn.
    const history = await readHistory(client, jobId);
    const started = history.filter((event) => event.kind === 'activityTaskStarted');
    expect(started.filter((event) => (event.attempt ?? 1) > 1)).toEqual([]);
    const modelCalls = history.filter(
      (event) =>
        event.kind === 'activityTaskScheduled' &&
        MODEL_CALL_ACTIVITIES.has(event.activityType ?? ''),
    );
    expect(modelCalls).toHaveLength(4);
  } finally {
    await close();
  }

  const events = await jobEvents(jobId, options);
  expect(events.map((event) => event.seq)).toEqual(events.map((_event, index) => index + 1));
  expect(events.filter((event) => event.type === 'turn_start')).toHaveLength(4);
  expect(events.at(-1)?.type).toBe('agent_end');
  expect((await jobStatus(jobId, options)).lastSeq).toBe(events.length);

  worker.signal('SIGTERM');
  expectExit(await worker.done, 0);
}, 170_000);
