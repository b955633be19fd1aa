/**
 * A cancelled tool call ends within the abort grace even when its body ignores the signal (a
 * user's tool, say): the job's cancellation and the worker's shutdown wait for the call, and
 * must not wait for as long as the body would run.
 */
import { CancelledFailure } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { Type } from '@sinclair/typebox';
import { ABORT_GRACE_MS, settleOrAbandon } from '../../../src/activities/abort-grace.js';
import { makeExecuteTool } from '../../../src/activities/execute-tool.js';
import type { ToolImplementation } from '../../../src/tools/tool-implementation.js';
import type { ToolJournal } from '../../../src/tools/tool-journal.js';

const never = () => new Promise<never>(() => undefined);

test('a body that settles keeps its outcome, abort or not', async () => {
  const controller = new AbortController();
  await expect(settleOrAbandon(Promise.resolve('done'), controller.signal, 50)).resolves.toBe(
    'done',
  );
  controller.abort();
  const thrown = { code: 'E_PLAIN' };
  // A tool may throw what is not an Error; it passes through as thrown.
  const failing = (async () => {
    await Promise.resolve();
    throw thrown as unknown as Error;
  })();
  await expect(settleOrAbandon(failing, controller.signal, 50)).rejects.toBe(thrown);
});

test('a body still running a grace after the abort is abandoned; before the abort it is waited for', async () => {
  const controller = new AbortController();
  const call = settleOrAbandon(never(), controller.signal, 100);
  const outcome = call.then(
    () => 'resolved',
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );
  await new Promise((resolve) => setTimeout(resolve, 300));
  const started = Date.now();
  controller.abort();
  expect(await outcome).toBe(
    'the tool body did not stop within 100 ms of the cancellation and was left running',
  );
  expect(Date.now() - started).toBeGreaterThanOrEqual(90);
});

test('R21: a cancelled call whose body ignores the abort ends as cancelled within the grace', async () => {
  let started = false;
  const stubborn: ToolImplementation = {
    spec: { name: 'stubborn', label: 'stubborn', description: '', parameters: Type.Object({}) },
    execute: () => {
      started = true;
      return never();
    },
  };
  const executeTool = makeExecuteTool(new Map([['stubborn', stubborn]]), {} as ToolJournal);
  const activity = new MockActivityEnvironment();
  const result = activity
    .run(executeTool, {
      toolName: 'stubborn',
      toolCallId: 'c1',
      args: {},
      workspace: '/tmp',
      idempotencyKey: 'k',
    })
    .catch((error: unknown) => error);
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(started).toBe(true);
  const cancelledAt = Date.now();
  activity.cancel();
  expect(await result).toBeInstanceOf(CancelledFailure);
  const waited = Date.now() - cancelledAt;
  expect(waited).toBeGreaterThanOrEqual(ABORT_GRACE_MS - 100);
  expect(waited).toBeLessThan(ABORT_GRACE_MS + 2000);
}, 15_000);
