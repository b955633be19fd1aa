/**
 * The README demo, through the real `dar` command: a scripted model fixes the typo in a copy of
 * examples/workspace. Then the finished jobs are read back with no worker running: `dar status`,
 * `dar list` and `dar events` start a workflow-only worker for their queries.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  dar,
  startDar,
  killLeftoverDars,
  linesOf,
  reportTiming,
  REPO_ROOT,
  type DarResult,
} from './support/dar.js';
import { expectExit } from './support/expect-exit.js';
import { copyExampleWorkspace, makeTempDir, removeDir } from './support/files.js';
import { jobEvents, parseJsonLines, type EventLine } from './support/jobs.js';
import { readServerJson, stopServer } from './support/temporal.js';

const root = makeTempDir('demo');
const stateDir = join(root, 'state');
/** Every command here finds its state folder through DAR_STATE_DIR. */
const options = { stateDir };
/** Relative to the repository root, the working directory of `dar` unless told otherwise. */
const demoModel = 'scripted:examples/demo-script.json';
const demoScriptPath = join(REPO_ROOT, 'examples', 'demo-script.json');
const humanWorkspace = copyExampleWorkspace(join(root, 'workspace-human'));
const jsonWorkspace = copyExampleWorkspace(join(root, 'workspace-json'));
const jsonJobId = `demo-json-${process.pid}`;

let humanRun: DarResult;
let jsonRun: DarResult;

/** Each expected line appears, in this order (other lines may come between). */
function expectInOrder(lines: string[], expected: string[]): void {
  let from = 0;
  for (const line of expected) {
    const index = lines.indexOf(line, from);
    if (index < 0) throw new Error(`Missing "${line}" after line ${from} in:\n${lines.join('\n')}`);
    from = index + 1;
  }
}

beforeAll(async () => {
  // Both runs at once (one starts the server, the other waits for it): the demo takes a while.
  [humanRun, jsonRun] = await Promise.all([
    dar(['run', 'fix it', '--model', demoModel, '--workspace', humanWorkspace], {
      ...options,
      timeoutMs: 150_000,
    }),
    dar(
      ['run', 'fix it', '--json', '--id', jsonJobId, '--model', `scripted:${demoScriptPath}`],
      // --workspace defaults to the working directory.
      { ...options, cwd: jsonWorkspace, timeoutMs: 150_000 },
    ),
  ]);
  reportTiming('demo: dar run (human output, two runs at once)', humanRun.ms);
  reportTiming('demo: dar run --json', jsonRun.ms);
}, 160_000);

afterAll(async () => {
  await killLeftoverDars();
  await stopServer(stateDir);
  expect(readServerJson(stateDir)).toBeUndefined();
  removeDir(root);
});

test('dar run: exit 0, events from "agent started" to "agent finished", greeting.txt fixed, no warnings', () => {
  expectExit(humanRun, 0);
  const lines = linesOf(humanRun.stdout);
  expect(lines[0]).toBe('agent started');
  expect(lines.at(-1)).toBe('agent finished');
  expectInOrder(lines, [
    '-- turn 1 --',
    'user: fix it',
    'assistant: Let me look at the workspace first.',
    '  > ls {}',
    '  > read {"path":"greeting.txt"}',
    '-- turn 2 --',
    '  > edit {"path":"greeting.txt","oldText":"Helo","newText":"Hello"}',
    '  ok edit: Applied 1 edit to greeting.txt',
    '-- turn 3 --',
    '  ok bash: 1 2 greeting.txt',
    '-- turn 4 --',
    'assistant: Done: greeting.txt now says "Hello, durable world!".',
    'agent finished',
  ]);
  expect(lines).toContain('  ok ls: README.md greeting.txt');
  expect(humanRun.stderr).toMatch(/^Started job agent-[0-9a-f-]+$/m);
  // No log noise around the job's output: the model-call workers run activities only, by design.
  expect(humanRun.stderr).not.toContain('[WARN]');
  expect(readFileSync(join(humanWorkspace, 'greeting.txt'), 'utf8')).toBe(
    'Hello, durable world!\nThis file is edited by the demo agent.\n',
  );
});

test('dar run --json: one JSON object per line, each with a numeric seq and a type', () => {
  expectExit(jsonRun, 0);
  const events = parseJsonLines(jsonRun.stdout);
  for (const event of events) {
    expect(typeof event.seq).toBe('number');
    expect(typeof event.type).toBe('string');
  }
  expect(events.map((event) => event.seq)).toEqual(events.map((_event, index) => index + 1));
  expect(events[0]?.type).toBe('agent_start');
  expect(events.at(-1)?.type).toBe('agent_end');
  expect(events.filter((event) => event.type === 'turn_start')).toHaveLength(4);
  expect(jsonRun.stderr).toContain(`Started job ${jsonJobId}`);
  expect(readFileSync(join(jsonWorkspace, 'greeting.txt'), 'utf8')).toMatch(/^Hello, durable/);
});

describe('reading finished jobs with no worker running', () => {
  test('dar status ID', async () => {
    const result = await dar(['status', jsonJobId], { ...options, timeoutMs: 90_000 });
    reportTiming('demo: dar status on a finished job, no worker', result.ms);
    expectExit(result, 0);
    const lastSeq = parseJsonLines(jsonRun.stdout).length;
    expect(result.stdout).toContain(`job:        ${jsonJobId}\n`);
    expect(result.stdout).toContain('workflow:   COMPLETED\n');
    expect(result.stdout).toContain('phase:      done\n');
    expect(result.stdout).toContain('turns:      4\n');
    expect(result.stdout).toContain(`events:     ${lastSeq}\n`);
    expect(result.stdout).toContain('stopped:    stop\n');
    expect(result.stdout).toContain('outcome:    completed\n');
  });

  test('dar list', async () => {
    const result = await dar(['list'], options);
    reportTiming('demo: dar list', result.ms);
    expectExit(result, 0);
    const lines = linesOf(result.stdout);
    const humanJobId = /^Started job (\S+)$/m.exec(humanRun.stderr)?.[1];
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^JOB +STATUS +PHASE +TURNS +BATCH +STARTED$/);
    for (const id of [jsonJobId, humanJobId]) {
      // Status, phase and turns (the demo's four), no batch.
      expect(lines.find((line) => line.startsWith(`${id} `))).toMatch(/ COMPLETED +done +4 +- /);
    }
  });

  test('dar events ID --json gives the events dar run --json printed', async () => {
    const started = Date.now();
    const events: EventLine[] = await jobEvents(jsonJobId, { ...options, timeoutMs: 90_000 });
    reportTiming('demo: dar events --json on a finished job, no worker', Date.now() - started);
    expect(events).toEqual(parseJsonLines(jsonRun.stdout));
  });
});

test('dar run whose output reader goes away (`| head -1`) stops watching as on Ctrl-C, without a crash', async () => {
  const workspace = copyExampleWorkspace(join(root, 'workspace-closed-output'));
  const run = startDar(['run', 'fix it', '--model', demoModel, '--workspace', workspace], {
    ...options,
    timeoutMs: 150_000,
  });
  // Once the first line is out, the reader leaves; the job's next lines meet a closed pipe.
  await new Promise<void>((resolve) => {
    run.child.stdout?.on('data', () => resolve());
  });
  run.child.stdout?.destroy();
  const result = await run.done;
  expectExit(result, 130);
  expect(result.stderr).toContain('Stopped watching.');
  expect(result.stderr).not.toContain('EPIPE');
}, 160_000);
