/**
 * A worker crash in the middle of a tool call, through the CLI: `dar run --detach`, a
 * `dar worker` that is SIGKILLed while bash runs, a second `dar worker` that finishes the job.
 * The lost tool call is detected by its heartbeat timeout; no finished model call is made again,
 * and the dead worker's bash command is ended rather than left running.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  dar,
  killLeftoverDars,
  linesOf,
  reportTiming,
  startDar,
  type DarProcess,
} from './support/dar.js';
import { expectExit } from './support/expect-exit.js';
import { bashTurn, finalTurn, makeTempDir, removeDir, writeScript } from './support/files.js';
import { jobEvents, waitForCompletedJob } from './support/jobs.js';
import { groupMembers, readPid, signalGroup } from './support/processes.js';
import {
  activityTypesBySchedule,
  connectToEmbeddedServer,
  jobResult,
  readHistory,
  readServerJson,
  stopServer,
} from './support/temporal.js';
import { waitFor } from './support/wait.js';
import { MODEL_CALL_ACTIVITIES } from '../../src/workflows/model-call-activities.js';

const root = makeTempDir('crash');
const stateDir = join(root, 'state');
const workspace = join(root, 'workspace');
const toolGroups: number[] = [];

function startWorker(): DarProcess {
  return startDar(['worker', '--state-dir', stateDir], { timeoutMs: 170_000 });
}

function waitUntilPolling(worker: DarProcess): Promise<true> {
  return waitFor(
    'the worker to poll',
    () => {
      if (!worker.isRunning) throw new Error(`The worker exited:\n${worker.stderr}`);
      return worker.stderr.includes('Worker running on task queue');
    },
    { timeoutMs: 90_000 },
  );
}

beforeAll(() => {
  mkdirSync(workspace);
});

afterAll(async () => {
  await killLeftoverDars();
  for (const group of toolGroups) signalGroup(group, 'SIGKILL');
  await stopServer(stateDir);
  expect(readServerJson(stateDir)).toBeUndefined();
  removeDir(root);
});

test('R24: a SIGKILLed worker loses only its running tool call; a new worker finishes the job and no finished model call runs twice', async () => {
  const script = writeScript(root, 'script.json', [
    bashTurn('slow-call', 'echo $$ > shell.pid; sleep 5; echo done > marker'),
    {
      content: [{ type: 'toolCall', id: 'list-call', name: 'ls', arguments: {} }],
      stopReason: 'toolUse',
    },
    finalTurn('Finished after the crash.'),
  ]);
  const start = await dar([
    'run',
    'survive a crash',
    '--detach',
    '--model',
    `scripted:${script}`,
    '--workspace',
    workspace,
    '--state-dir',
    stateDir,
  ]);
  expectExit(start, 0);
  const lines = linesOf(start.stdout);
  expect(lines).toHaveLength(1);
  const jobId = lines[0]!;
  expect(jobId).toMatch(/^agent-[0-9a-f-]{36}$/);

  const firstWorker = startWorker();
  const shellPid = await waitFor(
    'the bash tool to start',
    () => {
      if (!firstWorker.isRunning) throw new Error(`The worker exited:\n${firstWorker.stderr}`);
      return readPid(join(workspace, 'shell.pid'));
    },
    { timeoutMs: 90_000 },
  );
  toolGroups.push(shellPid);

  // The crash: only the worker's own process.
  firstWorker.signal('SIGKILL');
  const crashed = await firstWorker.done;
  const killedAt = Date.now();
  expect(crashed.signal).toBe('SIGKILL');
  // The tool's command does not outlive its worker: its guardian ends the process group within
  // moments (it used to run on as an orphan while the job went on without it).
  await waitFor(
    "the dead worker's tool command to end",
    () => groupMembers(shellPid).length === 0,
    {
      timeoutMs: 5_000,
    },
  );

  const secondWorker = startWorker();
  await waitUntilPolling(secondWorker);
  // The lost bash call is noticed by its heartbeat timeout (10 s), then the job goes on.
  const status = await waitForCompletedJob(jobId, { stateDir }, 120_000);
  reportTiming('crash: job completed after the worker was killed', Date.now() - killedAt);
  expect(status.turns).toBe(3);
  expect(status.stopReason).toBe('stop');

  const { client, close } = await connectToEmbeddedServer(stateDir);
  try {
    const result = await jobResult(client, stateDir, jobId);
    const history = await readHistory(client, jobId);
    const types = activityTypesBySchedule(history);
    const scheduledOf = (...types: string[]) =>
      history.filter(
        (event) =>
          event.kind === 'activityTaskScheduled' && types.includes(event.activityType ?? ''),
      );

    // One model call per assistant message: none was repeated after the crash.
    const assistants = result.messages.filter((message) => message.role === 'assistant');
    expect(assistants).toHaveLength(3);
    expect(scheduledOf(...MODEL_CALL_ACTIVITIES)).toHaveLength(assistants.length);
    const modelStarts = history.filter(
      (event) =>
        event.kind === 'activityTaskStarted' &&
        MODEL_CALL_ACTIVITIES.has(types.get(event.scheduledEventId ?? 0) ?? ''),
    );
    expect(modelStarts).toHaveLength(assistants.length);
    expect(modelStarts.filter((event) => (event.attempt ?? 1) > 1)).toEqual([]);

    // The bash call ran once (its spec allows one attempt) and was timed out by its heartbeat.
    expect(scheduledOf('executeToolWithStore')).toHaveLength(2);
    const timedOut = history.filter((event) => event.kind === 'activityTaskTimedOut');
    expect(timedOut).toHaveLength(1);
    expect(timedOut[0]!.failureMessage).toMatch(/heartbeat/i);

    // R4: every tool call has exactly one result; the lost one is an error the model saw.
    const results = result.messages.filter((message) => message.role === 'toolResult');
    expect(results.map((message) => message.toolCallId)).toEqual(['slow-call', 'list-call']);
    expect(results.map((message) => message.isError)).toEqual([true, false]);
    // bash is not replay-safe: the model is told the call may have partially run.
    const [firstBlock] = results[0]?.role === 'toolResult' ? results[0].content : [];
    expect(firstBlock?.type === 'text' ? firstBlock.text : '').toMatch(
      /^interrupted: this call may have partially run; check before retrying \(.*heartbeat/i,
    );
  } finally {
    await close();
  }

  // The command never finished its work (it would have, 5 s after it started).
  expect(existsSync(join(workspace, 'marker'))).toBe(false);

  // The event log has no gap and no repeat.
  const events = await jobEvents(jobId, { stateDir });
  expect(events.map((event) => event.seq)).toEqual(events.map((_event, index) => index + 1));
  expect(events.filter((event) => event.type === 'agent_end')).toHaveLength(1);

  // Graceful shutdown of the second worker.
  secondWorker.signal('SIGTERM');
  const stopped = await secondWorker.done;
  expectExit(stopped, 0);
  expect(stopped.stderr).toContain('Worker stopped.');
}, 170_000);
