import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { startDevServer } from '../support/temporal-server.js';
import * as activities from './echo/activities.js';
import { echoAgent } from './echo/workflows.js';

let environment: TestWorkflowEnvironment;

beforeAll(async () => {
  environment = await startDevServer();
});

afterAll(async () => {
  await environment?.teardown();
});

test('R1, R8, R15: the core loop runs in a workflow with activities as its effects', async () => {
  const taskQueue = `echo-${randomUUID()}`;
  const worker = await Worker.create({
    connection: environment.nativeConnection,
    taskQueue,
    workflowsPath: fileURLToPath(new URL('./echo/workflows.ts', import.meta.url)),
    activities,
    // Every workflow task replays the whole history: nondeterminism would fail the run.
    maxCachedWorkflows: 0,
  });
  const outcome = await worker.runUntil(
    environment.client.workflow.execute(echoAgent, {
      taskQueue,
      workflowId: `echo-${randomUUID()}`,
      args: ['say hi'],
    }),
  );

  const results = outcome.messages.filter((message) => message.role === 'toolResult');
  expect(results).toHaveLength(2);
  // "3" was coerced to 3 before the body ran.
  expect(results[0]).toMatchObject({ toolCallId: 'call-1', isError: false });
  expect(results[0]?.content).toEqual([{ type: 'text', text: 'hi hi hi' }]);
  // "many" cannot become an integer: an error result naming the field, the body never ran.
  expect(results[1]).toMatchObject({ toolCallId: 'call-2', isError: true });
  expect(JSON.stringify(results[1]?.content)).toContain('times: must be integer');
  const last = outcome.messages.at(-1);
  expect(last).toMatchObject({ role: 'assistant', stopReason: 'stop' });
  expect(JSON.stringify(last)).toContain('done, saw results');
  expect(outcome.events[0]).toBe('agent_start');
  expect(outcome.events.at(-1)).toBe('agent_end');
  expect(outcome.events.filter((type) => type === 'turn_start')).toHaveLength(2);
});
