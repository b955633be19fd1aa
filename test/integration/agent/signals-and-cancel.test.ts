import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import type { AgentJob } from '../../../src/client/job-client.js';
import type { Message } from '../../../src/core/index.js';
import {
  jobInput,
  scriptedModel,
  startTestJob,
  temporaryFolder,
  text,
  toolCall,
  useAgentTestServer,
} from '../../support/agent-harness.js';

const server = useAgentTestServer('signals');

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function waitForEvent(job: AgentJob, type: string, toolCallId?: string) {
  return waitFor(async () =>
    (await job.events(0)).find(
      (event) =>
        event.type === type &&
        (toolCallId === undefined || ('toolCallId' in event && event.toolCallId === toolCallId)),
    ),
  );
}

function roles(messages: Message[]): string[] {
  return messages.map((message) =>
    message.role === 'user' && typeof message.content === 'string'
      ? `user:${message.content}`
      : message.role,
  );
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('R20: a steering signal is injected before the next model call', async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [
    { stopReason: 'toolUse', content: [toolCall('b1', 'bash', { command: 'sleep 2' })] },
    { stopReason: 'stop', content: [text('done')] },
  ]);
  const job = await startTestJob(server, jobInput({ model, workspace: folder }));
  await waitForEvent(job, 'tool_execution_start', 'b1');
  await job.steer('also look at the tests');
  const result = await job.result();
  expect(roles(result.messages)).toEqual([
    'user:do the task',
    'assistant',
    'toolResult',
    'user:also look at the tests',
    'assistant',
  ]);
});

test('R20: a follow-up signal starts another turn when the agent would stop', async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [
    { stopReason: 'stop', content: [text('first answer')], delayMs: 1500 },
    { stopReason: 'stop', content: [text('second answer')] },
  ]);
  const job = await startTestJob(server, jobInput({ model, workspace: folder }));
  await waitForEvent(job, 'turn_start');
  await job.followUp('and one more thing');
  const result = await job.result();
  expect(roles(result.messages)).toEqual([
    'user:do the task',
    'assistant',
    'user:and one more thing',
    'assistant',
  ]);
  const events = await job.events(0);
  expect(events.filter((event) => event.type === 'agent_end')).toHaveLength(1);
});

test('R21, R19: cancelling aborts the running bash body, kills its processes, answers every call', async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [
    {
      stopReason: 'toolUse',
      content: [
        toolCall('sleeper', 'bash', {
          command: 'echo $$ > shell.pid; sleep 60 & echo $! > child.pid; wait',
        }),
        toolCall('later', 'bash', { command: 'touch later-ran' }),
      ],
    },
    { stopReason: 'stop', content: [text('never reached')] },
  ]);
  const job = await startTestJob(
    server,
    jobInput({ model, workspace: folder, toolExecution: 'sequential' }),
  );
  const childPid = await waitFor(async () => {
    const path = join(folder, 'child.pid');
    return existsSync(path) && readFileSync(path, 'utf8').trim()
      ? Number(readFileSync(path, 'utf8'))
      : undefined;
  });
  const shellPid = Number(readFileSync(join(folder, 'shell.pid'), 'utf8'));
  expect(isAlive(childPid)).toBe(true);

  const cancelledAt = Date.now();
  await job.cancel();
  const failure: unknown = await job.handle.result().catch((error: unknown) => error);
  const closedAfterMs = Date.now() - cancelledAt;
  expect(failure).toBeInstanceOf(WorkflowFailedError);
  const description = await job.handle.describe();
  expect(description.status.name).toBe('CANCELLED');
  expect(closedAfterMs).toBeLessThan(10_000);

  await waitFor(async () => (!isAlive(childPid) && !isAlive(shellPid) ? true : undefined), 5000);
  expect(existsSync(join(folder, 'later-ran'))).toBe(false);

  // The transcript stays readable after the workflow closed.
  const messages = await job.transcript();
  const results = messages.filter((message) => message.role === 'toolResult');
  expect(results.map((result) => [result.toolCallId, result.isError, result.content])).toEqual([
    ['sleeper', true, [{ type: 'text', text: 'Operation aborted' }]],
    ['later', true, [{ type: 'text', text: 'Operation aborted' }]],
  ]);
  const events = await job.events(0);
  expect(events.at(-1)?.type).toBe('agent_end');
  expect(events.filter((event) => event.type === 'turn_start')).toHaveLength(1);
  const status = await job.status();
  expect(status.cancelled).toBe(true);
});

test('R21: cancelling during a model call ends it as aborted and starts no new turn', async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [
    { stopReason: 'stop', content: [text('too late')], delayMs: 60_000 },
  ]);
  const job = await startTestJob(server, jobInput({ model, workspace: folder }));
  await waitForEvent(job, 'turn_start');
  await new Promise((resolve) => setTimeout(resolve, 500));
  await job.cancel();
  await expect(job.handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
  const messages = await job.transcript();
  expect(messages.at(-1)).toMatchObject({ role: 'assistant', stopReason: 'aborted' });
  const events = await job.events(0);
  expect(events.map((event) => event.type).slice(-2)).toEqual(['turn_end', 'agent_end']);
});
