/**
 * Workers SIGKILLed at the worst moments of a tool call, through the CLI, on one embedded server:
 *
 * - queue A: one turn calls `edit`, `write` and `bash` at once. The worker runs with the test
 *   hook that holds a file tool right after its rename; it is killed once both file tools are
 *   held and bash has started. A plain worker finishes the job.
 * - queue B: one turn calls `edit`; the worker is held just before the rename and killed there.
 *
 * The file tools are replay-safe: their retries find the change in the tool journal. bash is not:
 * it is not run again and its call reads as interrupted.
 */
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolResultMessage } from '../../src/core/index.js';
import { INTERRUPTED_TOOL_CALL } from '../../src/workflows/tool-failure-message.js';
import {
  dar,
  describeResult,
  killLeftoverDars,
  linesOf,
  startDar,
  type DarOptions,
  type DarProcess,
} from './support/dar.js';
import {
  finalTurn,
  makeTempDir,
  removeDir,
  writeScript,
  type ScriptAnswer,
} from './support/files.js';
import { waitForCompletedJob } from './support/jobs.js';
import { groupMembers, readPid, signalGroup } from './support/processes.js';
import {
  connectToEmbeddedServer,
  jobResult,
  readServerJson,
  stopServer,
} from './support/temporal.js';
import { waitFor } from './support/wait.js';

const root = makeTempDir('replay-safety');
const stateDir = join(root, 'state');
const workspace = join(root, 'workspace');
const afterMarker = join(root, 'held-after-rename');
const beforeMarker = join(root, 'held-before-rename');
const queueA = `replay-safety-a-${process.pid}`;
const queueB = `replay-safety-b-${process.pid}`;
const toolGroups: number[] = [];
const WRITTEN = 'written by the write tool\n';

/** What each job left: its tool results by call id, and what the test saw at the kill. */
const seen = {
  results: new Map<string, ToolResultMessage>(),
  oneBAtKill: '',
  writtenInodeAtKill: 0,
  straysAtKill: [] as string[],
};

const inWorkspace = (name: string) => join(workspace, name);
const read = (name: string) => readFileSync(inWorkspace(name), 'utf8');
const queueOptions = (queue: string): DarOptions => ({ env: { DAR_TASK_QUEUE: queue } });

function toolTurn(calls: Array<{ id: string; name: string; arguments: object }>): ScriptAnswer {
  return {
    content: calls.map((call) => ({
      type: 'toolCall' as const,
      id: call.id,
      name: call.name,
      arguments: call.arguments as Record<string, unknown>,
    })),
    stopReason: 'toolUse',
  };
}

async function startJob(queue: string, script: string): Promise<string> {
  const started = await dar(
    ['run', 'crash me', '--detach', '--model', `scripted:${script}`, '--workspace', workspace],
    { ...queueOptions(queue), stateDir, timeoutMs: 120_000 },
  );
  if (started.code !== 0) throw new Error(`dar run failed: ${describeResult(started)}`);
  const id = linesOf(started.stdout)[0];
  if (!id) throw new Error(`dar run printed no job id: ${describeResult(started)}`);
  return id;
}

function startWorker(queue: string, env: Record<string, string> = {}): DarProcess {
  return startDar(['worker', '--state-dir', stateDir], {
    env: { DAR_TASK_QUEUE: queue, ...env },
    timeoutMs: 170_000,
  });
}

function markerLines(marker: string): number {
  try {
    return linesOf(readFileSync(marker, 'utf8')).length;
  } catch {
    return 0;
  }
}

function alive(worker: DarProcess): void {
  if (!worker.isRunning) throw new Error(`The worker exited:\n${worker.stderr}`);
}

async function toolResults(jobId: string): Promise<ToolResultMessage[]> {
  const { client, close } = await connectToEmbeddedServer(stateDir);
  try {
    const result = await jobResult(client, stateDir, jobId);
    return result.messages.filter(
      (message): message is ToolResultMessage => message.role === 'toolResult',
    );
  } finally {
    await close();
  }
}

beforeAll(async () => {
  mkdirSync(workspace);
  writeFileSync(inWorkspace('one-a.txt'), 'a\n');
  writeFileSync(inWorkspace('one-b.txt'), 'b\n');
  // Each edit doubles the only letter: applied twice, it would fail ("occurs 2 times").
  const scriptA = writeScript(root, 'a.json', [
    toolTurn([
      { id: 'edit-a', name: 'edit', arguments: { path: 'one-a.txt', oldText: 'a', newText: 'aa' } },
      { id: 'write-a', name: 'write', arguments: { path: 'written.txt', content: WRITTEN } },
      {
        id: 'bash-a',
        name: 'bash',
        arguments: { command: 'echo line >> appended.txt; echo $$ > shell.pid; sleep 60' },
      },
    ]),
    finalTurn('Done after the crash.'),
  ]);
  const scriptB = writeScript(root, 'b.json', [
    toolTurn([
      { id: 'edit-b', name: 'edit', arguments: { path: 'one-b.txt', oldText: 'b', newText: 'bb' } },
    ]),
    finalTurn('Done after the crash.'),
  ]);
  const jobA = await startJob(queueA, scriptA);
  const jobB = await startJob(queueB, scriptB);

  const heldAfter = startWorker(queueA, { DAR_TEST_PAUSE_AFTER_FILE_CHANGE: afterMarker });
  const heldBefore = startWorker(queueB, { DAR_TEST_PAUSE_BEFORE_FILE_CHANGE: beforeMarker });
  await waitFor(
    'both file tools held after their rename, and bash running',
    () => {
      alive(heldAfter);
      return markerLines(afterMarker) === 2 && readPid(inWorkspace('shell.pid'));
    },
    { timeoutMs: 120_000 },
  );
  await waitFor(
    'the edit held before its rename',
    () => {
      alive(heldBefore);
      return markerLines(beforeMarker) === 1;
    },
    { timeoutMs: 120_000 },
  );

  heldAfter.signal('SIGKILL');
  heldBefore.signal('SIGKILL');
  await Promise.all([heldAfter.done, heldBefore.done]);
  seen.oneBAtKill = read('one-b.txt');
  seen.straysAtKill = readdirSync(workspace).filter((name) => name.startsWith('.'));
  seen.writtenInodeAtKill = statSync(inWorkspace('written.txt')).ino;
  // The bash command's guardian ends it with its worker, so it cannot append again.
  const shellPid = readPid(inWorkspace('shell.pid'));
  if (shellPid) {
    toolGroups.push(shellPid);
    await waitFor("the dead worker's command to end", () => groupMembers(shellPid).length === 0);
  }

  // Plain workers: the lost calls are noticed by their heartbeat timeout (10 s).
  const resumeA = startWorker(queueA);
  const resumeB = startWorker(queueB);
  await Promise.all([
    waitForCompletedJob(jobA, { stateDir, ...queueOptions(queueA) }, 120_000),
    waitForCompletedJob(jobB, { stateDir, ...queueOptions(queueB) }, 120_000),
  ]);
  for (const message of [...(await toolResults(jobA)), ...(await toolResults(jobB))]) {
    seen.results.set(message.toolCallId ?? '', message);
  }
  resumeA.signal('SIGTERM');
  resumeB.signal('SIGTERM');
  await Promise.all([resumeA.done, resumeB.done]);
}, 240_000);

afterAll(async () => {
  await killLeftoverDars();
  for (const group of toolGroups) signalGroup(group, 'SIGKILL');
  await stopServer(stateDir);
  expect(readServerJson(stateDir)).toBeUndefined();
  removeDir(root);
});

function textOf(callId: string): string {
  const message = seen.results.get(callId);
  return (message?.content ?? [])
    .map((block) => (block.type === 'text' ? block.text : ''))
    .join('');
}

test('R24: an edit killed after its rename is applied once, and its retry reports success', () => {
  expect(read('one-a.txt')).toBe('aa\n');
  expect(seen.results.get('edit-a')?.isError).toBe(false);
  expect(textOf('edit-a')).toBe('Applied 1 edit to one-a.txt');
});

test('R24: a write killed after its rename is not written again, and its retry reports success', () => {
  expect(read('written.txt')).toBe(WRITTEN);
  // The retry returned the journalled result: no second rename replaced the file.
  expect(statSync(inWorkspace('written.txt')).ino).toBe(seen.writtenInodeAtKill);
  expect(seen.results.get('write-a')?.isError).toBe(false);
  expect(textOf('write-a')).toBe(`Wrote ${Buffer.byteLength(WRITTEN)} bytes to written.txt`);
});

test('R24: an edit killed just before its rename leaves the file intact, then is applied once', () => {
  expect(seen.oneBAtKill).toBe('b\n');
  expect(read('one-b.txt')).toBe('bb\n');
  expect(seen.results.get('edit-b')?.isError).toBe(false);
  expect(textOf('edit-b')).toBe('Applied 1 edit to one-b.txt');
  // The killed attempt's temporary file, left beside the target, was removed by the retry.
  expect(seen.straysAtKill).toEqual([expect.stringMatching(/^\.one-b\.txt\.[0-9a-f]{12}\.tmp$/)]);
  expect(readdirSync(workspace).filter((name) => name.startsWith('.'))).toEqual([]);
});

test('R16, R24: bash killed mid-command is not run again, and its call reads as interrupted', () => {
  expect(read('appended.txt')).toBe('line\n');
  expect(seen.results.get('bash-a')?.isError).toBe(true);
  expect(textOf('bash-a').startsWith(INTERRUPTED_TOOL_CALL)).toBe(true);
});
