import { mkdtempSync, readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { FileJobStore } from '../../src/store/file/file-job-store.js';
import { createAgentWorker } from '../../src/worker/agent-worker.js';
import { WORKFLOW_STACK_FRAMES } from '../../src/workflows/stack-frames.js';
import { startDevServer } from '../support/temporal-server.js';

let environment: TestWorkflowEnvironment;

beforeAll(async () => {
  environment = await startDevServer();
});

afterAll(async () => {
  await environment?.teardown();
});

/*
 * Temporal records where every workflow promise was made by capturing a stack trace; the
 * frames it formats are most of a workflow task's cost. A worker's bundle preloads the module
 * that bounds them, before the sandbox's globals are frozen.
 */
test('a worker bundling a workflow module records at most WORKFLOW_STACK_FRAMES frames per error', async () => {
  const taskQueue = `stack-frames-${randomUUID()}`;
  const store = await FileJobStore.open({ folder: mkdtempSync(join(tmpdir(), 'dar-frames-')) });
  const worker = await createAgentWorker({
    connection: environment.nativeConnection,
    taskQueue,
    store,
    workflowsOnly: true,
    workflowsPath: fileURLToPath(new URL('./stack-frames/workflows.ts', import.meta.url)),
  });
  const frames = await worker.runUntil(
    environment.client.workflow.execute<() => Promise<number>>('errorStackFrames', {
      taskQueue,
      workflowId: `stack-frames-${randomUUID()}`,
    }),
  );
  // Still a stack to read (an error five calls deep has more frames than the bound) ...
  expect(frames).toBe(WORKFLOW_STACK_FRAMES);
  // ... where V8's default records ten.
  expect(WORKFLOW_STACK_FRAMES).toBeLessThan(10);
});

test('the prebuilt workflow bundles preload the same module', () => {
  for (const name of ['workflow-bundle.js', 'workflow-bundle-traced.js']) {
    const bundle = readFileSync(new URL(`../../dist/${name}`, import.meta.url), 'utf8');
    expect(bundle).toMatch(/Error\.stackTraceLimit = WORKFLOW_STACK_FRAMES/);
  }
});

/*
 * Each workflow evaluates its bundle's modules afresh: the prebuilt bundles concatenate the ES
 * modules (TypeBox's several hundred among them) instead of wrapping each one apart.
 */
test('the prebuilt workflow bundles concatenate their ES modules', () => {
  for (const name of ['workflow-bundle.js', 'workflow-bundle-traced.js']) {
    const bundle = readFileSync(new URL(`../../dist/${name}`, import.meta.url), 'utf8');
    const wrapped = bundle.match(/^\/\*\*\*\/ "[^"]+"$/gm) ?? [];
    // TypeBox's modules are not wrapped one by one (each was, before).
    expect(wrapped.filter((module) => module.includes('@sinclair/typebox'))).toEqual([]);
    expect(wrapped.length).toBeGreaterThan(0);
    expect(bundle).toContain('@sinclair/typebox');
  }
});
