/**
 * A `dar worker` SIGKILLed while a batch of parallel tool calls finishes and stores its output:
 * a second worker finishes the job, and the stored transcript and event log hold every message
 * and every event exactly once.
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { FileJobStore } from '../../src/store/file/file-job-store.js';
import {
  dar,
  describeResult,
  killLeftoverDars,
  linesOf,
  reportTiming,
  startDar,
  type DarProcess,
} from './support/dar.js';
import { expectExit } from './support/expect-exit.js';
import { finalTurn, makeTempDir, removeDir, writeScript } from './support/files.js';
import { jobEvents, waitForCompletedJob } from './support/jobs.js';
import { readPid, signalGroup } from './support/processes.js';
import {
  connectToEmbeddedServer,
  jobResult,
  readServerJson,
  stopServer,
} from './support/temporal.js';
import { waitFor } from './support/wait.js';

const root = makeTempDir('worker-kill-store');
const stateDir = join(root, 'state');
const workspace = join(root, 'workspace');
const CALLS = 8;

function startWorker(): DarProcess {
  return startDar(['worker', '--state-dir', stateDir], { timeoutMs: 170_000 });
}

/** The process groups of the tool commands (each shell wrote its pid, the group's id). */
function toolGroups(): number[] {
  return readdirSync(workspace)
    .filter((name) => name.endsWith('.pid'))
    .flatMap((name) => readPid(join(workspace, name)) ?? []);
}

beforeAll(() => {
  mkdirSync(workspace);
});

afterAll(async () => {
  await killLeftoverDars();
  for (const group of toolGroups()) signalGroup(group, 'SIGKILL');
  await stopServer(stateDir);
  expect(readServerJson(stateDir)).toBeUndefined();
  removeDir(root);
});

test('R4, R24: a worker SIGKILLed while parallel calls store their output; a second worker finishes the job with transcript and events exactly once', async () => {
  // Call n finishes after n/2 s with 40,000 characters of output to store.
  const calls = Array.from({ length: CALLS }, (_, index) => ({
    type: 'toolCall' as const,
    id: `call-${index}`,
    name: 'bash',
    arguments: {
      command: `echo $$ > call-${index}.pid; sleep ${index * 0.5}; head -c 40000 /dev/zero | tr '\\0' ${index}`,
    },
  }));
  const script = writeScript(root, 'script.json', [
    { content: calls, stopReason: 'toolUse' },
    {
      content: [{ type: 'toolCall', id: 'after-crash', name: 'ls', arguments: {} }],
      stopReason: 'toolUse',
    },
    finalTurn('Finished after the crash.'),
  ]);
  const start = await dar([
    'run',
    'survive a crash while storing',
    '--detach',
    '--model',
    `scripted:${script}`,
    '--workspace',
    workspace,
    '--state-dir',
    stateDir,
  ]);
  expectExit(start, 0);
  const [jobId] = linesOf(start.stdout);
  if (!jobId) throw new Error(`No job id:\n${describeResult(start)}`);

  const firstWorker = startWorker();
  // Killed once some calls have finished (their output stored) while others still run.
  const store = await FileJobStore.open({ folder: join(stateDir, 'store') });
  try {
    await waitFor(
      'two tool calls to finish',
      async () => {
        if (!firstWorker.isRunning) throw new Error(`The worker exited:\n${firstWorker.stderr}`);
        const stored = await store.readEvents(jobId, { afterSeq: 0, limit: 10_000 });
        const ended = stored.filter(
          (event) => (event.event as { type?: unknown }).type === 'tool_execution_end',
        );
        return ended.length >= 2;
      },
      { timeoutMs: 90_000, intervalMs: 50 },
    );
  } finally {
    await store.close();
  }
  firstWorker.signal('SIGKILL');
  const crashed = await firstWorker.done;
  const killedAt = Date.now();
  expect(crashed.signal).toBe('SIGKILL');
  for (const group of toolGroups()) signalGroup(group, 'SIGKILL');

  const secondWorker = startWorker();
  // Calls lost with the worker are noticed by their heartbeat timeout (10 s).
  const status = await waitForCompletedJob(jobId, { stateDir }, 120_000);
  reportTiming('worker kill: job completed after the worker was killed', Date.now() - killedAt);
  expect(status.stopReason).toBe('stop');

  const { client, close } = await connectToEmbeddedServer(stateDir);
  try {
    const result = await jobResult(client, stateDir, jobId);
    const messages = result.messages;
    expect(messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      ...calls.map(() => 'toolResult'),
      'assistant',
      'toolResult',
      'assistant',
    ]);
    // R4: one result per call, in source order; finished calls kept their output, calls lost
    // with the worker are errors (bash is not replay-safe: it is not run again on its own).
    const results = messages.flatMap((message) => (message.role === 'toolResult' ? [message] : []));
    expect(results.map((message) => message.toolCallId)).toEqual([
      ...calls.map((call) => call.id),
      'after-crash',
    ]);
    const finished = results.slice(0, CALLS).filter((message) => !message.isError);
    expect(finished.length).toBeGreaterThanOrEqual(2);
    for (const message of finished) {
      const index = message.toolCallId.replace('call-', '');
      const [block] = message.content;
      expect(block?.type === 'text' ? block.text : '').toBe(index.repeat(40_000));
    }
    for (const message of results.slice(0, CALLS).filter((entry) => entry.isError)) {
      const [block] = message.content;
      expect(block?.type === 'text' ? block.text : '').toMatch(/^interrupted: /);
    }

    // Events: 1..n, each call started and ended exactly once, agent_end last with every message.
    const events = await jobEvents(jobId, { stateDir });
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    const callIdsOf = (type: string) =>
      events.filter((event) => event.type === type).map((event) => event.toolCallId);
    expect([...callIdsOf('tool_execution_start')].sort()).toEqual(
      [...calls.map((call) => call.id), 'after-crash'].sort(),
    );
    expect([...callIdsOf('tool_execution_end')].sort()).toEqual(
      [...calls.map((call) => call.id), 'after-crash'].sort(),
    );
    expect(events.filter((event) => event.type === 'agent_end')).toHaveLength(1);
    const end = events.at(-1);
    expect(end?.type).toBe('agent_end');
    expect(end?.messages).toEqual(messages);
  } finally {
    await close();
  }

  secondWorker.signal('SIGTERM');
  expectExit(await secondWorker.done, 0);
}, 170_000);
