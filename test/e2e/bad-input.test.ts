/**
 * Bad input to the real `dar` command: each mistake exits with code 2 and one line on stderr
 * naming it, and a `dar run` with bad input starts nothing: no state folder, no server, no job.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  dar,
  describeResult,
  killLeftoverDars,
  linesOf,
  REPO_ROOT,
  type DarResult,
} from './support/dar.js';
import { copyExampleWorkspace, makeTempDir, removeDir } from './support/files.js';
import { parseJsonLines } from './support/jobs.js';
import { readServerJson, stopServer } from './support/temporal.js';

const root = makeTempDir('bad-input');
/** A state folder whose server runs (started in beforeAll), for the commands that need one. */
const liveState = join(root, 'live-state');
const workspace = copyExampleWorkspace(join(root, 'workspace'));
const demoScript = 'scripted:examples/demo-script.json';

function file(name: string, text: string): string {
  const path = join(root, name);
  writeFileSync(path, text);
  return path;
}

const malformedScript = file('malformed.json', '[{"content": [');
const badStopScript = file('bad-stop.json', '[{"content": [], "stopReason": "finished"}]');
const malformedPolicy = file('policy.json', '{ "rules": [ oops ] }');
const backtrackingPolicy = file(
  'backreference-policy.json',
  JSON.stringify({
    rules: [{ tool: 'bash', argument: 'command', pattern: '(rm).*\\1', reason: 'no' }],
  }),
);

/** `dar run` mistakes: extra arguments after the prompt, and what stderr must say. */
const runMistakes: Array<[string, string[], RegExp]> = [
  [
    'unknown flag',
    ['--model', demoScript, '--bogus'],
    /^dar run: unknown option --bogus; `dar help run` lists the options$/,
  ],
  [
    'missing model script file',
    ['--model', `scripted:${join(root, 'missing.json')}`],
    /^dar run: Model script \S*missing\.json: cannot be read \(ENOENT\)$/,
  ],
  [
    'malformed JSON script',
    ['--model', `scripted:${malformedScript}`],
    /^dar run: Model script \S*malformed\.json: not valid JSON \(.+\)$/,
  ],
  [
    'script with a bad stopReason',
    ['--model', `scripted:${badStopScript}`],
    /^dar run: Model script \S*bad-stop\.json: answer 1: "stopReason" must be one of stop, /,
  ],
  [
    'unknown tool name in --tools',
    ['--model', demoScript, '--tools', 'read,frobnicate'],
    /^dar run: Unknown tool frobnicate in --tools; known: /,
  ],
  [
    'malformed policy file',
    ['--model', demoScript, '--policy', malformedPolicy],
    /^dar run: Policy file \S*policy\.json: /,
  ],
  [
    'policy pattern that linear-time matching cannot do (a backreference)',
    ['--model', demoScript, '--policy', backtrackingPolicy],
    /^dar run: Policy file \S*backreference-policy\.json: Invalid policy: rules\[0\]\.pattern \(rule for tool "bash"\): .*backreferences and lookaround are not supported$/,
  ],
  [
    'budget: --max-turns that is not a whole number',
    ['--model', demoScript, '--max-turns', '2.5'],
    /^dar run: --max-turns must be a whole number of at least 1, not "2\.5"$/,
  ],
  [
    'budget: --max-time without a unit',
    ['--model', demoScript, '--max-time', '30'],
    /^dar run: --max-time must be a duration such as 90s, 30m or 2h, not "30"$/,
  ],
  [
    'budget: --max-time over 100 years',
    ['--model', demoScript, '--max-time', '99999999999h'],
    /^dar run: --max-time must be at most 100 years, not "99999999999h"$/,
  ],
  [
    '--keep-open over 100 years',
    ['--model', demoScript, '--keep-open', '876001h'],
    /^dar run: --keep-open must be at most 100 years, not "876001h"$/,
  ],
  [
    'budget: --max-cost that is not positive',
    ['--model', demoScript, '--max-cost', '0'],
    /^dar run: --max-cost must be a positive amount in US dollars, not "0"$/,
  ],
  [
    'nonexistent workspace',
    ['--model', demoScript, '--workspace', join(root, 'no-such-folder')],
    /^dar run: Workspace \S*no-such-folder does not exist$/,
  ],
  [
    'a job id over 255 bytes',
    ['--model', demoScript, '--id', 'j'.repeat(1500)],
    /^dar run: --id has 1500 bytes, over the limit of 255 \(a job id is 1 to 255 bytes of printable characters, without spaces\)$/,
  ],
  [
    'a job id with a space',
    ['--model', demoScript, '--id', 'fix it'],
    /^dar run: --id holds a space or unprintable character \(U\+0020\) at character 4 /,
  ],
  [
    'misspelt flag',
    ['--modle', demoScript],
    /^dar run: unknown option --modle \(did you mean --model\?\); `dar help run` lists the options$/,
  ],
];

function runArgs(extra: string[]): string[] {
  // --workspace first: a later --workspace in `extra` wins (parseArgs keeps the last value).
  return ['run', 'fix it', '--workspace', workspace, ...extra];
}

/** Exit code 2, nothing on stdout, exactly one stderr line matching `problem`. */
function expectUsageError(result: DarResult, problem: RegExp): void {
  const context = describeResult(result);
  expect({ code: result.code, context }).toEqual({ code: 2, context });
  expect(result.stdout).toBe('');
  const lines = linesOf(result.stderr);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(problem);
}

beforeAll(async () => {
  // Starts the embedded server of liveState (its progress lines go to stderr here, once).
  const result = await dar(['list', '--state-dir', liveState], { timeoutMs: 60_000 });
  expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 0, stdout: 'No jobs.\n' });
});

afterAll(async () => {
  await killLeftoverDars();
  await stopServer(liveState);
  expect(readServerJson(liveState)).toBeUndefined();
  removeDir(root);
});

describe('dar run with bad input: exit 2, one stderr line, nothing started', () => {
  test.concurrent.each(runMistakes)('%s', async (_label, extra, problem) => {
    const stateDir = join(root, `never-${_label.replace(/\W+/g, '-')}`);
    const result = await dar([...runArgs(extra), '--state-dir', stateDir]);
    expectUsageError(result, problem);
    // Checked before anything was started: not even the state folder exists.
    expect(existsSync(stateDir)).toBe(false);
  });

  test.concurrent.each([
    [
      'DAR_MODEL_IDLE_TIMEOUT',
      '0',
      /^dar run: DAR_MODEL_IDLE_TIMEOUT must be a duration such as 90s or 5m, or off, not "0"$/,
    ],
    ['DAR_STREAMING', 'sometimes', /^dar run: DAR_STREAMING must be on or off, not "sometimes"$/],
    [
      'DAR_STREAM_RETENTION',
      'forever',
      /^dar run: DAR_STREAM_RETENTION must be drop or keep, not "forever"$/,
    ],
  ])('a bad worker setting, %s=%s', async (name, value, problem) => {
    const stateDir = join(root, `never-${name}`);
    const result = await dar([...runArgs(['--model', demoScript]), '--state-dir', stateDir], {
      env: { [name]: value },
    });
    expectUsageError(result, problem);
    expect(existsSync(stateDir)).toBe(false);
  });

  test('with a running server, a rejected run starts no job', async () => {
    const [, extra, problem] = runMistakes[3]!;
    expectUsageError(await dar(runArgs(extra), { stateDir: liveState }), problem);
    const list = await dar(['list', '--json'], { stateDir: liveState });
    expect(list.code).toBe(0);
    expect(parseJsonLines(list.stdout)).toEqual([]);
  });
});

describe('other commands with bad input: exit 2, one stderr line', () => {
  test('a job command in a state folder where no job has run answers at once, starting no server', async () => {
    const fresh = join(root, 'fresh-state');
    for (const args of [
      ['status', 'no-such-id'],
      ['events', 'no-such-id'],
      ['cancel', 'no-such-id'],
      ['steer', 'no-such-id', 'text'],
    ]) {
      const result = await dar([...args, '--state-dir', fresh]);
      expectUsageError(
        result,
        new RegExp(
          `^dar ${args[0]}: No job with id no-such-id in the state folder \\S+fresh-state \\(another folder's jobs: --state-dir DIR or DAR_STATE_DIR\\); no job has run there yet$`,
        ),
      );
    }
    expect(readServerJson(fresh)).toBeUndefined();
  });

  test('an empty or blank steering or follow-up message is refused before anything is sent', async () => {
    for (const [command, text, what] of [
      ['steer', '', 'steering'],
      ['follow-up', '  \t ', 'follow-up'],
    ] as const) {
      // Refused before the job is even looked up: a running server answers no question.
      const result = await dar([command, 'no-such-id', text], { stateDir: liveState });
      expectUsageError(
        result,
        new RegExp(
          `^dar ${command}: The ${what} message is empty: give the text the agent should read$`,
        ),
      );
    }
  });

  test('an id of any size is quoted bounded in the answer', async () => {
    const fresh = join(root, 'fresh-state-long-id');
    const result = await dar(['status', 'x'.repeat(100_000), '--state-dir', fresh]);
    expectUsageError(
      result,
      /^dar status: No job with id x{1000}\.\.\. \(99000 more characters\) in the state folder /,
    );
    expect(result.stderr.length).toBeLessThan(1500);
  });

  test('an argument of any size is quoted bounded in the error that refuses it', async () => {
    const fresh = join(root, 'fresh-state-long-argument');
    const huge = 'y'.repeat(50_000);
    const model = await dar(['run', '--model', huge, 'hi', '--state-dir', fresh]);
    expectUsageError(model, /^dar run: Model "y+\.\.\. \(\d+ more characters\)$/);
    expect(model.stderr.length).toBeLessThan(8_100);
    const command = await dar([huge]);
    expectUsageError(
      command,
      /^dar: unknown command "y{200}\.\.\. \(49800 more characters\)"; run `dar help`$/,
    );
  });

  test('every job command refuses an empty job id, naming the problem', async () => {
    for (const args of [
      ['status', ''],
      ['events', ''],
      ['events', '', '--follow'],
      ['cancel', ''],
      ['steer', '', 'text'],
      ['follow-up', '', 'text'],
      ['approve', '', 'call-1'],
      ['deny', '', 'call-1'],
    ]) {
      const result = await dar(args, { stateDir: liveState });
      expectUsageError(
        result,
        new RegExp(
          `^dar ${args[0]}: The job id is empty: give the id \`dar run\` printed or \`dar list\` shows$`,
        ),
      );
    }
  });

  test('dar status no-such-id', async () => {
    const result = await dar(['status', 'no-such-id', '--state-dir', liveState]);
    expectUsageError(
      result,
      /^dar status: No job with id no-such-id in the state folder \/\S+ \(another folder's jobs: --state-dir DIR or DAR_STATE_DIR\)$/,
    );
  });

  test('dar cancel no-such-id', async () => {
    const result = await dar(['cancel', 'no-such-id'], { stateDir: liveState });
    expectUsageError(
      result,
      /^dar cancel: No job with id no-such-id in the state folder \/\S+ \(another folder's jobs: --state-dir DIR or DAR_STATE_DIR\)$/,
    );
  });

  test('dar prune with a duration over 100 years deletes nothing and starts nothing', async () => {
    const stateDir = join(root, 'never-prune');
    for (const [flags, problem] of [
      [
        ['--older-than', '0d', '--grace', '99999999999d'],
        /^dar prune: --grace must be at most 100 years, not "99999999999d"$/,
      ],
      [
        ['--older-than', '36501d'],
        /^dar prune: --older-than must be at most 100 years, not "36501d"$/,
      ],
    ] as const) {
      const result = await dar(['prune', ...flags, '--apply', '--state-dir', stateDir]);
      expectUsageError(result, problem);
    }
    expect(existsSync(stateDir)).toBe(false);
  });

  test('dar events --after past the safe integers, or not a cursor, names the flag', async () => {
    const stateDir = join(root, 'never-events-after');
    for (const after of ['99999999999999999999', '1:99999999999999999999', '3:x']) {
      const result = await dar(['events', 'some-id', '--after', after, '--state-dir', stateDir]);
      expectUsageError(
        result,
        new RegExp(
          `^dar events: --after must be a sequence number \\(SEQ\\) or a live cursor \\(SEQ:LIVESEQ\\), each at most 9007199254740991, not "${after}"$`,
        ),
      );
    }
    expect(existsSync(stateDir)).toBe(false);
  });

  test('unknown command', async () => {
    const stateDir = join(root, 'never-unknown-command');
    const result = await dar(['frobnicate', '--state-dir', stateDir]);
    expectUsageError(result, /^dar: unknown command "frobnicate"; run `dar help`$/);
    expect(existsSync(stateDir)).toBe(false);
  });

  test('misspelt command: the closest one is named', async () => {
    const result = await dar(['stauts', 'some-id']);
    expectUsageError(
      result,
      /^dar: unknown command "stauts" \(did you mean status\?\); run `dar help`$/,
    );
  });
});

test('dar --version prints the version; dar help run, dar run -h and dar run --help print the usage of run', async () => {
  const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    version: string;
  };
  const printed = await dar(['--version']);
  expect({ code: printed.code, stdout: printed.stdout }).toEqual({
    code: 0,
    stdout: `${version}\n`,
  });
  for (const args of [
    ['help', 'run'],
    ['run', '-h'],
    ['run', '--help'],
  ]) {
    const result = await dar(args);
    expect({ args, code: result.code }).toEqual({ args, code: 0 });
    expect(result.stdout).toMatch(/^usage: dar run "<prompt>" --model PROVIDER:MODEL /);
  }
});
