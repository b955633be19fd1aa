/**
 * What `dar` prints for people shows the control characters of a job's text instead of passing
 * them to the terminal: a file the agent reads (or a model's answer) must not be able to clear
 * the operator's screen, rewrite lines, set the clipboard (OSC 52) or make a command waiting for
 * approval read differently from what it runs (a right-to-left override). JSON output keeps the
 * text exactly.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dar, killLeftoverDars, startDar } from './support/dar.js';
import { expectExit } from './support/expect-exit.js';
import { bashTurn, finalTurn, makeTempDir, removeDir, writeScript } from './support/files.js';
import { parseJsonLines } from './support/jobs.js';
import { readServerJson, stopServer } from './support/temporal.js';
import { waitFor } from './support/wait.js';

const root = makeTempDir('terminal-output');
const stateDir = join(root, 'state');
const workspace = join(root, 'workspace');
const options = { stateDir, cwd: workspace, timeoutMs: 120_000 };

/** Bytes a terminal acts on: escape, bell, carriage return, C1's CSI, the RLO override. */
// eslint-disable-next-line no-control-regex -- the characters looked for
const ACTED_ON = /[\u001b\u0007\r\u009b\u202e]/;

beforeAll(() => {
  mkdirSync(workspace);
  // What a hostile file in the workspace could hold: colour, clear screen, a window title, a
  // clipboard write, a carriage return that hides the start of its line.
  writeFileSync(
    join(workspace, 'notes.txt'),
    'plain\n\u001b[2J\u001b]0;owned\u0007\u001b]52;c;cHduZWQ=\u0007 hidden\rshown\n',
  );
});

afterAll(async () => {
  await killLeftoverDars();
  await stopServer(stateDir);
  expect(readServerJson(stateDir)).toBeUndefined();
  removeDir(root);
});

test('dar run and dar events show the control characters of a job as symbols; --json keeps them', async () => {
  const script = writeScript(root, 'escapes.json', [
    bashTurn('show-notes', 'cat notes.txt'),
    finalTurn('Read it \u001b[31mred\u001b[0m, \u202eevil\u202c.'),
  ]);
  const jobId = `terminal-output-${process.pid}`;
  const run = await dar(['run', 'read the notes', '--id', jobId, '--model', `scripted:${script}`], {
    ...options,
  });
  expectExit(run, 0);
  expect(run.stdout).not.toMatch(ACTED_ON);
  // The bash output as it streamed, and the call's result line.
  expect(run.stdout).toContain('  | ␛[2J␛]0;owned␇␛]52;c;cHduZWQ=␇ hidden␍shown');
  expect(run.stdout).toContain('ok bash: plain ␛[2J␛]0;owned␇');
  expect(run.stdout).toContain('assistant: Read it ␛[31mred␛[0m, <U+202E>evil<U+202C>.');

  const events = await dar(['events', jobId], options);
  expectExit(events, 0);
  expect(events.stdout).not.toMatch(ACTED_ON);
  expect(events.stdout).toContain('assistant: Read it ␛[31mred␛[0m, <U+202E>evil<U+202C>.');

  const json = await dar(['events', jobId, '--json'], options);
  expectExit(json, 0);
  const texts = parseJsonLines(json.stdout).flatMap((line) => {
    const message = line.message as { role?: string; content?: Array<{ text?: string }> };
    return message?.role === 'assistant' ? message.content?.map((block) => block.text) : [];
  });
  expect(texts).toContain('Read it \u001b[31mred\u001b[0m, \u202eevil\u202c.');
});

test('dar approvals shows a waiting command with a right-to-left override as it would run', async () => {
  // A terminal renders the text after the override right to left: the end of the command would
  // read "reflection.log#", as if the deletion were harmless.
  const command = 'rm -rf data \u202e#gol.noitcelfer';
  const script = writeScript(root, 'approval.json', [
    {
      content: [{ type: 'toolCall', id: 'wipe', name: 'bash', arguments: { command } }],
      stopReason: 'toolUse',
    },
    finalTurn('Denied, then.'),
  ]);
  const policy = join(root, 'policy.json');
  writeFileSync(
    policy,
    JSON.stringify({ rules: [{ tool: 'bash', reason: 'look first \u001b[8m', approve: true }] }),
  );
  const jobId = `terminal-approval-${process.pid}`;
  const run = startDar(
    ['run', 'clean up', '--id', jobId, '--model', `scripted:${script}`, '--policy', policy],
    options,
  );
  const listed = await waitFor(
    'the call to wait for approval',
    async () => {
      if (!run.isRunning) throw new Error(`dar run exited:\n${run.stderr}`);
      const result = await dar(['approvals'], options);
      expectExit(result, 0);
      return result.stdout.includes(`${jobId}  call wipe`) && result;
    },
    { timeoutMs: 90_000, intervalMs: 500 },
  );
  expect(listed.stdout).not.toMatch(ACTED_ON);
  expect(listed.stdout).toContain('args:   {"command":"rm -rf data <U+202E>#gol.noitcelfer"}');
  expect(listed.stdout).toContain('reason: look first ␛[8m');

  expectExit(await dar(['deny', jobId, 'wipe'], options), 0);
  const ended = await run.done;
  expectExit(ended, 0);
  expect(ended.stdout).not.toMatch(ACTED_ON);
  expect(ended.stdout).toContain('waits for approval (call wipe, no deadline): look first ␛[8m');
});
