import { randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startJob } from '../../../src/client/job-client.js';
import { startCodecServer } from '../../../src/encryption/codec-server.js';
import { encryptingDataConverter } from '../../../src/encryption/data-converter.js';
import { EncryptingJobStore } from '../../../src/encryption/encrypting-job-store.js';
import { keyringOf } from '../../../src/encryption/encryption-keys.js';
import { AesGcmPayloadCodec } from '../../../src/encryption/payload-codec.js';
import { FileJobStore } from '../../../src/store/file/file-job-store.js';
import { createAgentWorker } from '../../../src/worker/agent-worker.js';
import {
  folderText,
  jobInput,
  scriptedModel,
  temporaryFolder,
  testWorkflowsPath,
  text,
  toolCall,
  uniqueName,
} from '../../support/agent-harness.js';
import { startDevServer } from '../../support/temporal-server.js';
import { flakyTool } from '../agent/flaky-tool-body.js';

let environment: TestWorkflowEnvironment;
beforeAll(async () => {
  environment = await startDevServer();
});
afterAll(async () => {
  await environment?.teardown();
});

/** Every payload (an object with `metadata` and `data`) anywhere in a decoded history. */
function payloadsIn(value: unknown, found: temporal.api.common.v1.IPayload[] = []) {
  if (typeof value !== 'object' || value === null || value instanceof Uint8Array) return found;
  if (
    'metadata' in value &&
    'data' in value &&
    (value as { data: unknown }).data instanceof Uint8Array
  ) {
    found.push(value as temporal.api.common.v1.IPayload);
    return found;
  }
  for (const child of Object.values(value)) payloadsIn(child, found);
  return found;
}

test('R25 (encryption at rest): with a key, neither the history nor the job store holds the prompt, tool arguments or results in plain text; the codec server shows them', async () => {
  const keyring = keyringOf([{ id: 'scan-key', key: randomBytes(32) }], 'scan-key');
  const dataConverter = encryptingDataConverter(keyring);
  const storeFolder = temporaryFolder('dar-encrypted-store-');
  const store = new EncryptingJobStore(
    await FileJobStore.open({
      folder: storeFolder,
      flushWrites: false,
      follow: { intervalMs: 50 },
    }),
    keyring,
  );
  const taskQueue = uniqueName('encryption');
  const worker = await createAgentWorker({
    connection: environment.nativeConnection,
    taskQueue,
    workflowsPath: testWorkflowsPath,
    tools: [flakyTool],
    store,
    dataConverter,
    workerOptions: { maxCachedWorkflows: 10 },
  });
  const client = new Client({ connection: environment.connection, dataConverter });

  const marker = randomUUID().slice(0, 8);
  const secrets = {
    prompt: `PROMPT-SECRET-${marker}`,
    toolArguments: `ARGS-SECRET-${marker}`,
    toolResult: `RESULT-SECRET-${marker}`,
    toolFailure: `FAILURE-SECRET-${marker}`,
  };
  const workspace = temporaryFolder();
  writeFileSync(join(workspace, 'input.txt'), `the file says ${secrets.toolResult}\n`);
  const model = scriptedModel(workspace, [
    {
      stopReason: 'toolUse',
      content: [
        toolCall('w1', 'write', { path: 'out.txt', content: secrets.toolArguments }),
        toolCall('r1', 'read', { path: 'input.txt' }),
        // A tool body that fails: its error message quotes its argument.
        toolCall('r2', 'read', { path: `${secrets.toolFailure}.txt` }),
      ],
    },
    { stopReason: 'stop', content: [text('all done')] },
  ]);

  const history = await worker.runUntil(async () => {
    const job = await startJob(
      client,
      jobInput({ model, workspace, prompt: secrets.prompt, tools: ['read', 'write'] }),
      { taskQueue, workflowId: uniqueName('job'), store },
    );
    const result = await job.result();
    expect(result.status).toMatchObject({ phase: 'done', stopReason: 'stop', turns: 2 });
    // The client reads through the same keys: the transcript comes back in clear.
    const transcript = JSON.stringify(await job.transcript());
    expect(transcript).toContain(secrets.prompt);
    expect(transcript).toContain(secrets.toolResult);
    expect(transcript).toContain(secrets.toolFailure);
    return job.handle.fetchHistory();
  });

  // The whole history, as the server stores it (protobuf bytes: every string and payload).
  const historyBytes = Buffer.from(temporal.api.history.v1.History.encode(history).finish());
  const historyText = historyBytes.toString('latin1');
  const storeText = folderText(storeFolder);
  for (const secret of Object.values(secrets)) {
    expect(historyText).not.toContain(secret);
    expect(storeText).not.toContain(secret);
  }
  // The scans can fail: the job store holds data, and the history's payloads hold the secrets
  // once decrypted, here through the codec server as the Temporal UI would ask it.
  expect(storeText).toContain('"darEncrypted":1');
  const payloads = payloadsIn(history);
  expect(payloads.length).toBeGreaterThan(5);
  const server = await startCodecServer({ codec: new AesGcmPayloadCodec(keyring), port: 0 });
  try {
    const response = await fetch(`${server.url}/decode`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Namespace': 'default' },
      body: JSON.stringify({
        payloads: payloads.map((payload) => ({
          metadata: Object.fromEntries(
            Object.entries(payload.metadata ?? {}).map(([name, bytes]) => [
              name,
              Buffer.from(bytes).toString('base64'),
            ]),
          ),
          data: Buffer.from(payload.data ?? []).toString('base64'),
        })),
      }),
    });
    expect(response.status).toBe(200);
    const decoded = (await response.json()) as { payloads: { data: string }[] };
    const decodedText = decoded.payloads
      .map((payload) => Buffer.from(payload.data, 'base64').toString('utf8'))
      .join('\n');
    // (A successful tool result lives in the job store only; the history holds its reference.)
    for (const secret of [secrets.prompt, secrets.toolArguments, secrets.toolFailure]) {
      expect(decodedText).toContain(secret);
    }
  } finally {
    await server.close();
    await store.close();
  }
});
