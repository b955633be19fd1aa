/**
 * `dar worker --metrics-port`: after a job, one scrape shows the runner's metrics (jobs, turns,
 * model calls, tokens and cost by model, tool failures) and the Temporal SDK's. The processes
 * run with an encryption key, so the compiled CLI's encrypting client, worker and store are
 * exercised too.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { folderText } from '../support/agent-harness.js';
import { dar, describeResult, killLeftoverDars, linesOf, startDar } from './support/dar.js';
import { makeTempDir, removeDir } from './support/files.js';
import { waitForCompletedJob } from './support/jobs.js';
import { readServerJson, stopServer } from './support/temporal.js';
import { waitFor } from './support/wait.js';

const root = makeTempDir('worker-metrics');
const stateDir = join(root, 'state');
const workspace = join(root, 'workspace');
const env = { DAR_ENCRYPTION_KEY: `metrics-test:${randomBytes(32).toString('base64')}` };

afterAll(async () => {
  await killLeftoverDars();
  await stopServer(stateDir);
  expect(readServerJson(stateDir)).toBeUndefined();
  removeDir(root);
});

/** The value of one sample line `name{labels} value` of an exposition text. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labelText = line.slice(name.length).match(/^\{([^}]*)\}/)?.[1] ?? '';
    if (wanted.every((pair) => labelText.split(',').includes(pair))) {
      return Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return Number.NaN;
}

test('dar worker --metrics-port serves dar_ and Temporal SDK metrics that count a finished job', async () => {
  mkdirSync(workspace, { recursive: true });
  const script = join(root, 'script.json');
  writeFileSync(
    script,
    JSON.stringify([
      {
        content: [
          { type: 'toolCall', id: 'w1', name: 'write', arguments: { path: 'a.txt', content: 'x' } },
          { type: 'toolCall', id: 'r1', name: 'read', arguments: { path: 'missing.txt' } },
        ],
        stopReason: 'toolUse',
        usage: { input: 120, output: 30, costUsd: 0.25 },
      },
      {
        content: [{ type: 'text', text: 'done' }],
        stopReason: 'stop',
        usage: { input: 200, output: 10, costUsd: 0.5 },
      },
    ]),
  );
  const worker = startDar(['worker', '--state-dir', stateDir, '--metrics-port', '0'], {
    env,
    timeoutMs: 170_000,
  });
  const url = await waitFor(
    'the metrics address',
    () => {
      if (!worker.isRunning) throw new Error(`The worker exited:\n${worker.stderr}`);
      return worker.stderr.match(/Prometheus metrics at (\S+)/)?.[1];
    },
    { timeoutMs: 90_000 },
  );
  const start = await dar(
    [
      'run',
      'METRICS-PROMPT-TEXT',
      '--detach',
      '--model',
      `scripted:${script}`,
      '--workspace',
      workspace,
      '--tools',
      'read,write',
      '--state-dir',
      stateDir,
    ],
    { env },
  );
  expect({ code: start.code, context: describeResult(start) }).toMatchObject({ code: 0 });
  const [jobId] = linesOf(start.stdout);
  if (!jobId) throw new Error(`No job id:\n${describeResult(start)}`);
  const status = await waitForCompletedJob(jobId, { stateDir, env }, 90_000);
  expect(status.stopReason).toBe('stop');

  const model = `scripted:${script}`;
  const text = await waitFor('the job to be counted', async () => {
    const body = await (await fetch(url)).text();
    return sample(body, 'dar_jobs_ended_total') >= 1 && body;
  });
  expect(sample(text, 'dar_jobs_ended_total')).toBe(1);
  expect(sample(text, 'dar_turns_total')).toBe(2);
  expect(sample(text, 'dar_model_tokens_total', { model, kind: 'input' })).toBe(320);
  expect(sample(text, 'dar_model_tokens_total', { model, kind: 'output' })).toBe(40);
  expect(sample(text, 'dar_model_cost_usd_total', { model })).toBeCloseTo(0.75);
  expect(sample(text, 'dar_model_call_duration_seconds_count', { model, outcome: 'ok' })).toBe(2);
  expect(sample(text, 'dar_tool_failures_total', { tool: 'read' })).toBe(1);
  expect(sample(text, 'dar_tool_calls_total', { tool: 'write', outcome: 'ok' })).toBe(1);
  // The SDK's runtime metrics, from its own endpoint, in the same scrape.
  expect(text).toMatch(/^temporal_\w+/m);

  // Encrypted at rest: the job store holds no prompt text.
  expect(folderText(join(stateDir, 'store'))).not.toContain('METRICS-PROMPT-TEXT');
  worker.signal('SIGTERM');
  expect((await worker.done).code).toBe(0);
});
