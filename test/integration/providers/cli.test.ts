import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { temporaryFolder } from '../../support/agent-harness.js';
import { FakeModelServer, sseReply } from './fake-model-server.js';
import { chatStream } from './openai-chat-stream.js';
import { randomKey } from './provider-rig.js';

/**
 * `dar run "hi" --model openai-compatible:some-model` exactly as a user types it, against a
 * fake OpenAI-compatible server, on the embedded Temporal server in a temporary state folder.
 * Runs the built CLI: `npm test` builds `dist/` first (`npm run build` when running alone).
 */

const root = fileURLToPath(new URL('../../..', import.meta.url));
const darBin = join(root, 'bin', 'dar.js');

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `node bin/dar.js ARGS` with this environment minus any Temporal or state settings. */
function dar(args: string[], extraEnv: Record<string, string>, cwd: string): Promise<Ran> {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith('TEMPORAL_') && name !== 'TEMPORAL_CLI_PATH') continue;
    if (name.startsWith('DAR_') || /_API_KEY(_FILE)?$|_BASE_URL$/.test(name)) continue;
    env[name] = value;
  }
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [darBin, ...args], {
      cwd,
      env: { ...env, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

let fake: FakeModelServer;
const stateDir = temporaryFolder('dar-cli-state-');

beforeAll(async () => {
  if (!existsSync(join(root, 'dist', 'providers', 'pi-ai-provider.js'))) {
    throw new Error('dist/ has no real providers: run `npm run build` first');
  }
  fake = await FakeModelServer.start();
});

afterAll(async () => {
  await dar(['server', 'stop', '--state-dir', stateDir], {}, root);
  await fake?.close();
}, 30_000);

test('dar run with an openai-compatible model, then dar status shows the tokens, and the same command again shows the ended job without calling the model', async () => {
  const workspace = temporaryFolder('dar-cli-workspace-');
  const key = randomKey();
  const env = { DAR_OPENAI_BASE_URL: `${fake.url}/v1`, DAR_OPENAI_API_KEY: key };
  fake.reply(
    sseReply(
      chatStream({
        finishReason: 'stop',
        text: ['Hello ', 'from the fake server.'],
        promptTokens: 321,
        completionTokens: 45,
      }),
    ),
  );
  const id = `cli-${crypto.randomUUID()}`;
  const runArgs = [
    'run',
    'hi',
    '--model',
    'openai-compatible:some-model',
    '--workspace',
    workspace,
    '--state-dir',
    stateDir,
    '--id',
    id,
  ];
  const run = await dar(runArgs, env, workspace);
  const said = `exit ${run.code}\n--- stdout\n${run.stdout}--- stderr\n${run.stderr}`;
  expect({ code: run.code, said }).toMatchObject({ code: 0 });
  expect(run.stdout).toContain('Hello from the fake server.');
  expect(fake.requests).toHaveLength(1);
  expect(fake.requests[0]?.headers.authorization).toBe(`Bearer ${key}`);
  expect(fake.requests[0]?.body).toMatchObject({
    model: 'some-model',
    messages: [expect.objectContaining({ role: 'system' }), { role: 'user', content: 'hi' }],
  });

  const status = await dar(['status', id, '--state-dir', stateDir], {}, workspace);
  expect(status.code).toBe(0);
  expect(status.stdout).toContain('tokens:     321 in, 45 out, 366 total');
  expect(status.stdout).not.toContain(key);

  // The same command again, once the job has ended: it shows that job, and no model call (and
  // no cost) is made a second time.
  const again = await dar(runArgs, env, workspace);
  const saidAgain = `exit ${again.code}\n--- stdout\n${again.stdout}--- stderr\n${again.stderr}`;
  expect({ code: again.code, said: saidAgain }).toMatchObject({ code: 0 });
  expect(again.stderr).toContain(`Attached to job ${id}`);
  expect(again.stdout).toContain('Hello from the fake server.');
  expect(fake.requests).toHaveLength(1);
}, 180_000);

test('a malformed DAR_OPENAI_BASE_URL is exit code 2 with one line, nothing started', async () => {
  const run = await dar(
    ['run', 'hi', '--model', 'openai-compatible:m', '--state-dir', stateDir],
    { DAR_OPENAI_BASE_URL: 'localhost:11434' },
    root,
  );
  expect(run.code).toBe(2);
  expect(run.stderr.trim().split('\n')).toHaveLength(1);
  expect(run.stderr).toContain('DAR_OPENAI_BASE_URL');
});
