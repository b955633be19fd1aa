import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { textOf, type Message, type ToolResultMessage } from '../../../src/core/index.js';
import {
  jobInput,
  scriptedModel,
  startTestJob,
  temporaryFolder,
  text,
  toolCall,
  useAgentTestServer,
} from '../../support/agent-harness.js';
import { summarizeHistory } from '../../support/history-checks.js';

const server = useAgentTestServer('size-guards');

function resultsOf(messages: Message[]): ToolResultMessage[] {
  return messages.filter((message): message is ToolResultMessage => message.role === 'toolResult');
}

function resultText(result: ToolResultMessage | undefined): string {
  return (result?.content ?? []).map((block) => (block.type === 'text' ? block.text : '')).join('');
}

test('R2: a model answer over 1 MiB fails once, not six times, and ends the run as an error', async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [
    { stopReason: 'stop', content: [text('t'.repeat(3 * 1024 * 1024))] },
  ]);
  const job = await startTestJob(server, jobInput({ model, workspace: folder }));
  const result = await job.result();

  expect(result.status.stopReason).toBe('error');
  expect(result.status.errorMessage).toMatch(
    /^The model's answer is \d+ characters of JSON, over the limit of 1048576$/,
  );
  const events = await job.allEvents();
  expect(events.at(-1)?.type).toBe('agent_end');
  const history = await summarizeHistory(job.handle);
  expect(history.workflowTaskProblems).toBe(0);
  // The run's first call, made on the job's queue by a worker that does not pace the provider.
  expect(history.activityAttempts).toEqual([{ activityType: 'callModelUnlessPaced', attempt: 1 }]);
});

test('R6, R4: tool calls over the size limits are bounded by the model activity and answered with the size error', async () => {
  const folder = temporaryFolder();
  const megabyte = 1024 * 1024;
  const model = scriptedModel(folder, [
    {
      stopReason: 'toolUse',
      content: [
        toolCall('n1', 'n'.repeat(megabyte), {}),
        toolCall('i'.repeat(megabyte), 'ls', {}),
        toolCall('a1', 'write', { path: 'big.txt', content: 'c'.repeat(megabyte) }),
        toolCall('ok', 'ls', {}),
      ],
    },
    { stopReason: 'stop', content: [text('done')] },
  ]);
  const job = await startTestJob(server, jobInput({ model, workspace: folder }));
  const result = await job.result();

  const assistant = result.messages.find((message) => message.role === 'assistant');
  const calls = assistant?.role === 'assistant' ? assistant.content : [];
  expect(JSON.stringify(calls).length).toBeLessThan(2000);
  const results = resultsOf(result.messages);
  expect(results.map((message) => message.isError)).toEqual([true, true, true, false]);
  expect(resultText(results[0])).toContain(`its tool name is ${megabyte} characters long`);
  expect(resultText(results[1])).toContain(`its call id is ${megabyte} characters long`);
  expect(resultText(results[2])).toMatch(/its arguments are \d+ characters of JSON/);
  expect((await summarizeHistory(job.handle)).workflowTaskProblems).toBe(0);
});

test('R10: the policy pattern ^(a+)+$ against a 100,000-character argument decides within the workflow task time', async () => {
  const folder = temporaryFolder();
  const long = 'a'.repeat(100_000);
  const model = scriptedModel(folder, [
    {
      stopReason: 'toolUse',
      content: [
        toolCall('blocked', 'ls', { path: long }),
        toolCall('through', 'ls', { path: `${long}!` }),
      ],
    },
    { stopReason: 'stop', content: [text('done')] },
  ]);
  const policy = {
    rules: [{ tool: 'ls', argument: 'path', pattern: '^(a+)+$', reason: 'only a' }],
  };
  const job = await startTestJob(server, jobInput({ model, workspace: folder, policy }));
  const result = await job.result();

  const [blocked, through] = resultsOf(result.messages);
  expect(resultText(blocked)).toBe('only a');
  // Let through by the policy; the file system then refuses the name, quoted in part.
  expect(through?.isError).toBe(true);
  expect(resultText(through).length).toBeLessThan(1000);
  expect((await summarizeHistory(job.handle)).workflowTaskProblems).toBe(0);
});

test('a policy RE2 cannot compile fails the job at once as BadInput, without retrying the workflow task', async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [{ stopReason: 'stop', content: [text('done')] }]);
  const policy = {
    rules: [{ tool: 'bash', argument: 'command', pattern: '(x)\\1', reason: 'no' }],
  };
  const job = await startTestJob(server, jobInput({ model, workspace: folder, policy }));
  const failure = await job.handle.result().then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(failure).toBeInstanceOf(WorkflowFailedError);
  const cause = (failure as WorkflowFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  expect(cause).toMatchObject({ type: 'BadInput', nonRetryable: true });
  expect(cause?.message).toMatch(
    /^Bad job input: Invalid policy: rules\[0\]\.pattern \(rule for tool "bash"\): .*backreferences/,
  );
  expect((await summarizeHistory(job.handle)).workflowTaskProblems).toBe(0);
});

test('R2: a transcript far past the 2 MiB payload limit goes on: history holds references, the model reads it from the store', async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [
    { stopReason: 'toolUse', content: [text('a'.repeat(950_000)), toolCall('a', 'ls', {})] },
    { stopReason: 'toolUse', content: [text('b'.repeat(950_000)), toolCall('b', 'ls', {})] },
    { stopReason: 'stop', content: [text(`${'c'.repeat(950_000)}final`)] },
  ]);
  const job = await startTestJob(server, jobInput({ model, workspace: folder }));
  const result = await job.result();

  expect(result.status.stopReason).toBe('stop');
  expect(result.messages.map((message) => message.role)).toEqual([
    'user',
    ...['assistant', 'toolResult', 'assistant', 'toolResult'],
    'assistant',
  ]);
  const last = result.messages.at(-1);
  expect(last?.role === 'assistant' && textOf(last).endsWith('final')).toBe(true);
  const transcriptBytes = JSON.stringify(result.messages).length;
  expect(transcriptBytes).toBeGreaterThan(2_800_000);
  // The whole history is a small fraction of one copy of the transcript.
  const historyBytes = JSON.stringify((await job.handle.fetchHistory()).events).length;
  expect(historyBytes).toBeLessThan(transcriptBytes / 10);
  expect((await summarizeHistory(job.handle)).workflowTaskProblems).toBe(0);
});

test('R2: an unknown provider in a model name of a megabyte ends the run with an error text cut to the limit', async () => {
  const folder = temporaryFolder();
  const job = await startTestJob(
    server,
    jobInput({ model: `nope:${'m'.repeat(1024 * 1024)}`, workspace: folder }),
  );
  const result = await job.result();

  expect(result.status.stopReason).toBe('error');
  const error = result.status.errorMessage ?? '';
  expect(error).toMatch(
    /^Unknown model provider "nope" in "nope:m+\.\.\. \(\d+ more characters\)$/,
  );
  expect(error.length).toBeLessThanOrEqual(4100);
  const history = await summarizeHistory(job.handle);
  expect(history.workflowTaskProblems).toBe(0);
});
