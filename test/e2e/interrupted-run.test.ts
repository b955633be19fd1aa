/**
 * Ctrl-C on `dar run` while a tool body runs: the command stops watching and its worker shuts
 * down, which stops the body midway. bash is not replay-safe, so it is not run again: once a
 * `dar worker` carries the job on, the call reads as interrupted (R16), not as the worker's
 * shutdown notice, and the job completes.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { INTERRUPTED_TOOL_CALL } from '../../src/workflows/tool-failure-message.js';
import { describeResult, killLeftoverDars, startDar } from './support/dar.js';
import { bashTurn, finalTurn, makeTempDir, removeDir, writeScript } from './support/files.js';
import { jobEvents, waitForCompletedJob } from './support/jobs.js';
import { stopServer } from './support/temporal.js';
import { waitFor } from './support/wait.js';

const root = makeTempDir('interrupted-run');
const stateDir = join(root, 'state');
const workspace = join(root, 'workspace');
const options = { stateDir };

afterAll(async () => {
  await killLeftoverDars();
  await stopServer(stateDir);
  removeDir(root);
}, 60_000);

test('R16: a bash call stopped by Ctrl-C on dar run reads as interrupted, runs once, and the job completes', async () => {
  mkdirSync(workspace);
  const script = writeScript(root, 'script.json', [
    bashTurn('slow', 'echo started >> runs.txt; sleep 30; echo finished >> runs.txt'),
    finalTurn('Done after the interruption.'),
  ]);
  const id = `interrupted-${process.pid}`;
  const run = startDar(
    ['run', 'go', '--model', `scripted:${script}`, '--workspace', workspace, '--id', id],
    { ...options, timeoutMs: 120_000 },
  );
  await waitFor('the bash body to start', () => existsSync(join(workspace, 'runs.txt')), {
    timeoutMs: 90_000,
  });
  run.signal('SIGINT');
  const stopped = await run.done;
  expect({ code: stopped.code, said: describeResult(stopped) }).toMatchObject({ code: 130 });
  expect(stopped.stderr).toContain('Stopped watching.');

  startDar(['worker'], { ...options, timeoutMs: 120_000 });
  await waitForCompletedJob(id, options, 90_000);
  const ended = (await jobEvents(id, options)).find(
    (event) => event.type === 'tool_execution_end' && event.toolCallId === 'slow',
  );
  const text = JSON.stringify(ended?.result);
  expect({ isError: ended?.isError, text }).toMatchObject({ isError: true });
  expect(text).toContain(`${INTERRUPTED_TOOL_CALL} (its worker shut down while it ran)`);
  expect(readFileSync(join(workspace, 'runs.txt'), 'utf8')).toBe('started\n');
}, 240_000);
