/**
 * The Pi-style example program (`examples/pi-agent/main.mjs`, `import { Agent } from
 * 'durable-agent-runner/agent'`) on the embedded server, its runs carried by a separate `dar
 * worker` that is SIGKILLed in the middle of the first run's second model call: a second worker
 * takes the job over (R24) and the program still receives its whole conversation, every event
 * once, in Pi's order.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import {
  darEnvironment,
  killLeftoverDars,
  REPO_ROOT,
  startDar,
  type DarProcess,
} from './support/dar.js';
import { copyExampleWorkspace, makeTempDir, removeDir } from './support/files.js';
import { parseJsonLines } from './support/jobs.js';
import {
  activityTypesBySchedule,
  connectToEmbeddedServer,
  readHistory,
  stopServer,
} from './support/temporal.js';
import { waitFor } from './support/wait.js';
import { MODEL_CALL_ACTIVITIES } from '../../src/workflows/model-call-activities.js';

const root = makeTempDir('pi-agent');
const stateDir = join(root, 'state');
const workspace = copyExampleWorkspace(join(root, 'workspace'));
const environment = { DAR_TASK_QUEUE: `pi-agent-${process.pid}` };

function startWorker(): DarProcess {
  return startDar(['worker', '--state-dir', stateDir], { env: environment, timeoutMs: 170_000 });
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

/** The example program, as a user runs it, with only the `dar worker`s carrying its runs. */
function startProgram() {
  const child = spawn(
    process.execPath,
    [
      join(REPO_ROOT, 'examples', 'pi-agent', 'main.mjs'),
      '--json',
      '--no-worker',
      '--state-dir',
      stateDir,
      '--workspace',
      workspace,
    ],
    {
      cwd: REPO_ROOT,
      env: darEnvironment({ env: environment }),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const output = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output.stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  return { child, output, exited };
}

let program: ReturnType<typeof startProgram> | undefined;

afterAll(async () => {
  program?.child.kill('SIGKILL');
  await killLeftoverDars();
  await stopServer(stateDir);
  removeDir(root);
});

function shapes(events: Array<Record<string, unknown>>): string[] {
  return events.map((event) => {
    const message = event.message as { role?: string } | undefined;
    return String(event.type).startsWith('message_')
      ? `${String(event.type)}:${message?.role}`
      : String(event.type);
  });
}

const ONE_TURN = ['turn_start', 'message_start:assistant', 'message_end:assistant'];
const EXPECTED = [
  // First prompt: ls, then the answer (during which the worker is killed).
  'agent_start',
  'turn_start',
  'message_start:user',
  'message_end:user',
  'message_start:assistant',
  'message_end:assistant',
  'tool_execution_start',
  'tool_execution_end',
  'message_start:toolResult',
  'message_end:toolResult',
  'turn_end',
  ...ONE_TURN,
  'turn_end',
  'agent_end',
  // Second prompt: the same job's next run.
  'agent_start',
  'turn_start',
  'message_start:user',
  'message_end:user',
  'message_start:assistant',
  'message_end:assistant',
  'turn_end',
  'agent_end',
];

test('R24: the Pi-style example receives its whole conversation when its worker is SIGKILLed in the middle of a run', async () => {
  const firstWorker = startWorker();
  await waitUntilPolling(firstWorker);
  program = startProgram();
  const output = program.output;

  // The ls call has ended: the next model call (5 s long in the script) is under way.
  await waitFor(
    'the tool call to end',
    () => {
      if (output.stdout.includes('"tool_execution_end"')) return true;
      if (program?.child.exitCode !== null)
        throw new Error(`The program exited:\n${output.stderr}`);
      return false;
    },
    { timeoutMs: 90_000 },
  );
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const seenBeforeKill = parseJsonLines(
    output.stdout.slice(0, output.stdout.lastIndexOf('\n') + 1),
  );
  firstWorker.signal('SIGKILL');
  expect((await firstWorker.done).signal).toBe('SIGKILL');
  // The run had not ended when the worker died.
  expect(seenBeforeKill.some((event) => event.type === 'agent_end')).toBe(false);

  const secondWorker = startWorker();
  await waitUntilPolling(secondWorker);
  const code = await program.exited;
  expect({ code, stderr: output.stderr }).toEqual({
    code: 0,
    stderr: expect.any(String) as string,
  });

  const events = parseJsonLines(output.stdout);
  expect(shapes(events)).toEqual(EXPECTED);
  const answers = events
    .filter((event) => event.type === 'message_end')
    .map(
      (event) => event.message as { role: string; content: Array<{ type: string; text?: string }> },
    )
    .filter((message) => message.role === 'assistant')
    .map((message) =>
      message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join(' '),
    );
  expect(answers).toEqual([
    'Let me look at the workspace.',
    'The workspace holds a greeting and a README.',
    'Yes: two files, greeting.txt and README.md.',
  ]);
  const jobId = /\(job (agent-[0-9a-f-]{36})\)/.exec(output.stderr)?.[1];
  expect(jobId).toBeDefined();

  // The kill landed in the model call: its attempt on the dead worker timed out and a second
  // attempt (on the second worker) answered.
  const { client, close } = await connectToEmbeddedServer(stateDir);
  try {
    const history = await readHistory(client, jobId ?? '');
    const types = activityTypesBySchedule(history);
    const modelStarts = history.filter(
      (event) =>
        event.kind === 'activityTaskStarted' &&
        MODEL_CALL_ACTIVITIES.has(types.get(event.scheduledEventId ?? 0) ?? ''),
    );
    expect(modelStarts.map((event) => event.attempt ?? 1)).toEqual([1, 2, 1]);
  } finally {
    await close();
  }
  secondWorker.signal('SIGTERM');
  await secondWorker.done;
}, 170_000);
