/**
 * The worst moment for a call of a tool that must not run twice (bash), through the CLI: the
 * command has run, its output is stored and how the call ended is remembered, but the worker is
 * SIGKILLed before Temporal records the activity as completed. The call is not run again (its
 * one attempt times out on its heartbeat); the workflow looks up how it ended, and the model
 * gets the command's real output instead of "interrupted: this call may have partially run".
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { INTERRUPTED_TOOL_CALL } from '../../src/workflows/tool-failure-message.js';
import {
  dar,
  describeResult,
  killLeftoverDars,
  linesOf,
  startDar,
  type DarProcess,
} from './support/dar.js';
import {
  bashTurn,
  finalTurn,
  heldCalls,
  makeTempDir,
  removeDir,
  writeScript,
} from './support/files.js';
import { jobEvents, waitForCompletedJob } from './support/jobs.js';
import {
  activityTypesBySchedule,
  connectToEmbeddedServer,
  jobResult,
  readHistory,
  stopServer,
} from './support/temporal.js';
import { waitFor } from './support/wait.js';

const root = makeTempDir('tool-answer-crash');
const stateDir = join(root, 'state');
const workspace = join(root, 'workspace');
const marker = join(root, 'held-after-tool');
const queue = `tool-answer-crash-${process.pid}`;

function startWorker(env: Record<string, string> = {}): DarProcess {
  return startDar(['worker', '--state-dir', stateDir], {
    env: { DAR_TASK_QUEUE: queue, ...env },
    timeoutMs: 170_000,
  });
}

afterAll(async () => {
  await killLeftoverDars();
  await stopServer(stateDir);
  removeDir(root);
});

test('R24: a worker killed after a bash call ended and its output was stored: the model gets that output, the command ran once', async () => {
  mkdirSync(workspace);
  const script = writeScript(root, 'script.json', [
    bashTurn('call-once', 'echo ran >> once.log; echo output-from-bash'),
    finalTurn('Ran it once.'),
  ]);
  const started = await dar(
    [
      'run',
      'run the command',
      '--detach',
      '--model',
      `scripted:${script}`,
      '--workspace',
      workspace,
      '--tools',
      'bash',
    ],
    { stateDir, env: { DAR_TASK_QUEUE: queue }, timeoutMs: 120_000 },
  );
  expect({ code: started.code, context: describeResult(started) }).toMatchObject({ code: 0 });
  const jobId = linesOf(started.stdout)[0] ?? '';

  // The first worker runs the command, stores its output, remembers the ending, and is held.
  const held = startWorker({ DAR_TEST_PAUSE_AFTER_TOOL_RESULT: marker });
  await waitFor(
    'the bash call held after it ended',
    () => {
      if (!held.isRunning) throw new Error(`The worker exited:\n${held.stderr}`);
      return heldCalls(marker) === 1;
    },
    { timeoutMs: 120_000 },
  );
  held.signal('SIGKILL');
  expect((await held.done).signal).toBe('SIGKILL');

  // Another worker: the lost attempt times out on its heartbeat (30 s), and is looked up.
  const resume = startWorker();
  const status = await waitForCompletedJob(
    jobId,
    { stateDir, env: { DAR_TASK_QUEUE: queue } },
    150_000,
  );
  expect(status.turns).toBe(2);
  expect(readFileSync(join(workspace, 'once.log'), 'utf8')).toBe('ran\n');

  const { client, close } = await connectToEmbeddedServer(stateDir);
  try {
    const result = await jobResult(client, stateDir, jobId);
    const toolResult = result.messages.find((message) => message.role === 'toolResult');
    expect(toolResult?.role === 'toolResult' && toolResult.isError).toBe(false);
    const text =
      toolResult?.role === 'toolResult'
        ? toolResult.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
        : '';
    expect(text).toContain('output-from-bash');
    expect(text).not.toContain(INTERRUPTED_TOOL_CALL);

    // One attempt of the body, timed out on its heartbeat; then the lookup, a local activity.
    const history = await readHistory(client, jobId);
    const types = activityTypesBySchedule(history);
    const toolStarts = history.filter(
      (event) =>
        event.kind === 'activityTaskStarted' &&
        types.get(event.scheduledEventId ?? 0) === 'executeToolWithStore',
    );
    expect(toolStarts.map((event) => event.attempt ?? 1)).toEqual([1]);
    const timedOut = history.filter((event) => event.kind === 'activityTaskTimedOut');
    expect(timedOut).toHaveLength(1);
    expect(timedOut[0]?.failureMessage).toMatch(/heartbeat/i);
    expect(history.filter((event) => event.kind === 'markerRecorded').length).toBeGreaterThan(0);
  } finally {
    await close();
  }

  const events = await jobEvents(jobId, { stateDir, env: { DAR_TASK_QUEUE: queue } });
  expect(events.map((event) => event.seq)).toEqual(events.map((_event, index) => index + 1));
  const ends = events.filter((event) => event.type === 'tool_execution_end');
  expect(ends).toEqual([expect.objectContaining({ isError: false })]);

  resume.signal('SIGTERM');
  await resume.done;
}, 300_000);
