/**
 * A job whose one turn calls a Pi tool and a `defineTool` tool, both from a module given to
 * `dar worker --tools`, survives a SIGKILL of that worker in the middle of both calls. A new
 * worker finishes the job: the replay-safe tool is run again and answers; the Pi tool (unsafe, as
 * every user tool unless it says otherwise) is not run again and its call reads as interrupted.
 * Every call gets exactly one result (R4, R24).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolResultMessage } from '../../src/core/index.js';
import { INTERRUPTED_TOOL_CALL } from '../../src/workflows/tool-failure-message.js';
import { dar, describeResult, killLeftoverDars, linesOf, startDar } from './support/dar.js';
import { finalTurn, makeTempDir, removeDir, writeScript } from './support/files.js';
import { waitForCompletedJob } from './support/jobs.js';
import {
  connectToEmbeddedServer,
  jobResult,
  readServerJson,
  stopServer,
} from './support/temporal.js';
import { waitFor } from './support/wait.js';

const root = makeTempDir('user-tools-kill');
const stateDir = join(root, 'state');
const workspace = join(root, 'workspace');
const toolModule = new URL('./support/held-tools.mjs', import.meta.url).pathname;
const options = { stateDir, env: { DAR_TASK_QUEUE: `user-tools-kill-${process.pid}` } };

function startedCalls(): string[] {
  try {
    return linesOf(readFileSync(join(workspace, 'calls.log'), 'utf8'));
  } catch {
    return [];
  }
}

afterAll(async () => {
  await killLeftoverDars();
  await stopServer(stateDir);
  expect(readServerJson(stateDir)).toBeUndefined();
  removeDir(root);
});

test('R4, R24: a turn of user tools survives a worker SIGKILL; each call gets exactly one result', async () => {
  mkdirSync(workspace);
  const script = writeScript(root, 'script.json', [
    {
      content: [
        { type: 'toolCall', id: 'pi-1', name: 'hold_pi', arguments: { workspace } },
        { type: 'toolCall', id: 'safe-1', name: 'hold_safe', arguments: {} },
      ],
      stopReason: 'toolUse',
    },
    finalTurn('Done after the crash.'),
  ]);
  const started = await dar(
    [
      'run',
      'hold on',
      '--detach',
      '--model',
      `scripted:${script}`,
      '--workspace',
      workspace,
      '--tools',
      `read,${toolModule}`,
    ],
    { ...options, timeoutMs: 120_000 },
  );
  if (started.code !== 0) throw new Error(`dar run failed: ${describeResult(started)}`);
  const jobId = linesOf(started.stdout)[0] ?? '';

  const doomed = startDar(['worker', '--tools', toolModule], { ...options, timeoutMs: 170_000 });
  await waitFor(
    'both tools started',
    () => {
      if (!doomed.isRunning) throw new Error(`The worker exited:\n${doomed.stderr}`);
      return startedCalls().length === 2;
    },
    { timeoutMs: 120_000 },
  );
  doomed.signal('SIGKILL');
  await doomed.done;
  writeFileSync(join(workspace, 'release'), '');

  // The lost calls are noticed by their heartbeat timeouts (3 s for hold_safe, the default 30 s
  // for the Pi tool, which declares none).
  const resumed = startDar(['worker', '--tools', toolModule], { ...options, timeoutMs: 170_000 });
  await waitForCompletedJob(jobId, options, 150_000);
  resumed.signal('SIGTERM');
  await resumed.done;

  const { client, close } = await connectToEmbeddedServer(stateDir);
  let results: ToolResultMessage[];
  try {
    const result = await jobResult(client, stateDir, jobId);
    results = result.messages.filter(
      (message): message is ToolResultMessage => message.role === 'toolResult',
    );
  } finally {
    await close();
  }
  const text = (message: ToolResultMessage | undefined) =>
    (message?.content ?? []).map((block) => (block.type === 'text' ? block.text : '')).join('');
  expect(results.map((message) => message.toolCallId)).toEqual(['pi-1', 'safe-1']);
  const [pi, safe] = results;
  expect(pi?.isError).toBe(true);
  expect(text(pi).startsWith(INTERRUPTED_TOOL_CALL)).toBe(true);
  expect(safe?.isError).toBe(false);
  expect(text(safe)).toBe('released (safe)');
  // The Pi tool ran once; the replay-safe one ran again on the new worker.
  expect(startedCalls().sort()).toEqual(['start pi-1', 'start safe-1', 'start safe-1']);
}, 400_000);
