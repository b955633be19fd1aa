/**
 * Tracing switched on by the standard variable: `dar run` with `OTEL_EXPORTER_OTLP_ENDPOINT`
 * sends the job's spans over OTLP/HTTP to a receiver in this test, and exits with them sent.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { dar, describeResult, killLeftoverDars } from './support/dar.js';
import { finalTurn, makeTempDir, removeDir, writeScript } from './support/files.js';
import { readServerJson, stopServer } from './support/temporal.js';

const root = makeTempDir('otlp-export');
const stateDir = join(root, 'state');
let receiver: Server;
const bodies: unknown[] = [];
/** A collector that takes the spans and then answers a byte every 2 s, never ending its answer. */
let trickler: Server;
const trickled: string[] = [];

beforeAll(async () => {
  receiver = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      if (request.url === '/v1/traces') bodies.push(JSON.parse(body));
      response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  trickler = createServer((request, response) => {
    trickled.push(request.url ?? '');
    request.resume();
    response.writeHead(200, { 'Content-Type': 'application/json' });
    const timer = setInterval(() => response.write(' '), 2000);
    response.on('close', () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => trickler.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await killLeftoverDars();
  await stopServer(stateDir);
  expect(readServerJson(stateDir)).toBeUndefined();
  await new Promise((resolve) => receiver.close(resolve));
  trickler.closeAllConnections();
  await new Promise((resolve) => trickler.close(resolve));
  removeDir(root);
});

/** `dar run` of `prompt` on a model script, exporting its spans to `collector`. */
function runTraced(
  prompt: string,
  script: string,
  collector: Server,
  env: Record<string, string> = {},
) {
  const { port } = collector.address() as AddressInfo;
  return dar(
    ['run', prompt, '--model', `scripted:${script}`, '--workspace', root, '--state-dir', stateDir],
    {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, ...env },
      timeoutMs: 120_000,
    },
  );
}

interface OtlpBody {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: { stringValue?: string } }[] };
    scopeSpans?: { spans?: { name: string; traceId: string }[] }[];
  }[];
}

test('dar run with OTEL_EXPORTER_OTLP_ENDPOINT exports the job trace over OTLP/HTTP', async () => {
  const script = writeScript(root, 'script.json', [
    {
      content: [{ type: 'toolCall', id: 'l1', name: 'ls', arguments: {} }],
      stopReason: 'toolUse',
    },
    finalTurn('Listed.'),
  ]);
  const run = await runTraced('list the folder', script, receiver, {
    OTEL_SERVICE_NAME: 'dar-test',
  });
  expect({ code: run.code, context: describeResult(run) }).toMatchObject({ code: 0 });
  const spans = (bodies as OtlpBody[]).flatMap((body) =>
    (body.resourceSpans ?? []).flatMap((resource) =>
      (resource.scopeSpans ?? []).flatMap((scope) =>
        (scope.spans ?? []).map((span) => ({
          ...span,
          service: resource.resource?.attributes?.find((entry) => entry.key === 'service.name')
            ?.value.stringValue,
        })),
      ),
    ),
  );
  const names = spans.map((span) => span.name);
  for (const expected of [
    'StartWorkflow:agentJob',
    'RunWorkflow:agentJob',
    'turn 1',
    'turn 2',
    'model call',
    'tool call ls',
  ]) {
    expect(names).toContain(expected);
  }
  expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
  expect(spans.find((span) => span.name === 'model call')?.service).toBe('dar-test');
});

test('a collector that never finishes its answer does not hold the command: dar run exits soon after the job', async () => {
  const script = writeScript(root, 'trickle.json', [finalTurn('Done.')]);
  const started = Date.now();
  const run = await runTraced('say done', script, trickler);
  expect({ code: run.code, context: describeResult(run) }).toMatchObject({ code: 0 });
  expect(trickled).toContain('/v1/traces');
  expect(run.stdout).toContain('Done.');
  // The spans were sent; their answer is waited for 5 s, then the command says so and exits
  // (before, it waited for the exporter's own 30 s limit, then failed: exit 1 on a job that
  // went well).
  expect(run.stderr).toContain(
    'Tracing: some spans may not have been sent: the exporter did not finish in 5 s',
  );
  expect(Date.now() - started).toBeLessThan(25_000);
});
