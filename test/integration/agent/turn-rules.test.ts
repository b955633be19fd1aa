import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import type { Message, ToolResultMessage } from '../../../src/core/index.js';
import {
  jobInput,
  scriptedModel,
  startTestJob,
  temporaryFolder,
  text,
  toolCall,
  useAgentTestServer,
} from '../../support/agent-harness.js';

const server = useAgentTestServer('turn-rules');

function resultsOf(messages: Message[]): ToolResultMessage[] {
  return messages.filter((message): message is ToolResultMessage => message.role === 'toolResult');
}

function resultText(result: ToolResultMessage | undefined): string {
  return (result?.content ?? []).map((block) => (block.type === 'text' ? block.text : '')).join('');
}

/** R4: every tool call in the transcript has exactly one result. */
function expectEveryCallAnswered(messages: Message[]): void {
  const callIds = messages.flatMap((message) =>
    message.role === 'assistant'
      ? message.content.flatMap((block) => (block.type === 'toolCall' ? [block.id] : []))
      : [],
  );
  const resultIds = resultsOf(messages).map((result) => result.toolCallId);
  expect([...resultIds].sort()).toEqual([...callIds].sort());
}

test('R1-R8, R10: a job edits files through activities, with policy, truncation and coercion', async () => {
  const folder = temporaryFolder();
  const workspace = join(folder, 'workspace');
  writeFileSync(join(folder, 'secret.txt'), 'outside the workspace');
  mkdirSync(workspace);
  const model = scriptedModel(folder, [
    {
      stopReason: 'toolUse',
      content: [
        text('Writing notes.'),
        toolCall('w1', 'write', { path: 'notes.txt', content: 'hello\nworld\n' }),
        toolCall('r1', 'read', { path: '../secret.txt' }),
        toolCall('x1', 'nope', {}),
      ],
    },
    // R3: valid arguments, but the message was cut off: nothing may run.
    {
      stopReason: 'length',
      content: [toolCall('w2', 'write', { path: 'notes.txt', content: 'truncated' })],
    },
    {
      stopReason: 'toolUse',
      content: [toolCall('e1', 'edit', { path: 'notes.txt', oldText: 'world', newText: 'there' })],
    },
    {
      stopReason: 'toolUse',
      content: [toolCall('r2', 'read', { path: 'notes.txt', offset: '2' })],
    },
    { stopReason: 'stop', content: [text('finished')] },
  ]);

  const job = await startTestJob(server, jobInput({ model, workspace }));
  const result = await job.result();
  const messages = result.messages;

  expect(readFileSync(join(workspace, 'notes.txt'), 'utf8')).toBe('hello\nthere\n');
  expectEveryCallAnswered(messages);
  const byId = new Map(resultsOf(messages).map((message) => [message.toolCallId, message]));
  expect(byId.get('w1')?.isError).toBe(false);
  expect(byId.get('r1')?.isError).toBe(true);
  expect(resultText(byId.get('r1'))).toContain('../secret.txt');
  expect(resultText(byId.get('x1'))).toBe('Tool nope not found');
  expect(byId.get('w2')?.isError).toBe(true);
  expect(resultText(byId.get('w2'))).toContain('output token limit');
  expect(byId.get('e1')?.isError).toBe(false);
  // "2" was coerced to the number 2: reading starts at line 2.
  expect(resultText(byId.get('r2'))).toContain('there');
  expect(resultText(byId.get('r2'))).not.toContain('hello');
  expect(messages.at(-1)).toMatchObject({ role: 'assistant', stopReason: 'stop' });

  const events = await job.events(0);
  expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  expect(events[0]?.type).toBe('agent_start');
  expect(events.at(-1)?.type).toBe('agent_end');
  expect(events.filter((event) => event.type === 'turn_end')).toHaveLength(5);
  const status = await job.status();
  expect(status).toMatchObject({ phase: 'done', modelCalls: 5, stopReason: 'stop' });
});

test('R2: a model that fails for good ends the run with stopReason error and its message', async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [
    { stopReason: 'toolUse', content: [toolCall('l1', 'ls', {})] },
  ]);
  const job = await startTestJob(server, jobInput({ model, workspace: folder }));
  const result = await job.result();
  const last = result.messages.at(-1);
  expect(last).toMatchObject({ role: 'assistant', stopReason: 'error' });
  expect(last?.role === 'assistant' && last.errorMessage).toContain('used up');
  const status = await job.status();
  expect(status.stopReason).toBe('error');
  expect(status.errorMessage).toContain('used up');
});

test('R13-R15: parallel bodies overlap, end events follow completion, results follow source order', async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [
    {
      stopReason: 'toolUse',
      content: [
        toolCall('slow', 'bash', { command: 'sleep 2; echo slow' }),
        toolCall('fast', 'bash', { command: 'sleep 0.2; echo fast' }),
      ],
    },
    { stopReason: 'stop', content: [text('done')] },
  ]);
  const started = Date.now();
  const job = await startTestJob(server, jobInput({ model, workspace: folder }));
  const result = await job.result();
  const elapsed = Date.now() - started;

  const events = await job.events(0);
  const ends = events.filter((event) => event.type === 'tool_execution_end');
  expect(ends.map((event) => event.type === 'tool_execution_end' && event.toolCallId)).toEqual([
    'fast',
    'slow',
  ]);
  expect(resultsOf(result.messages).map((message) => message.toolCallId)).toEqual(['slow', 'fast']);
  expect(resultText(resultsOf(result.messages)[0])).toContain('slow');
  // Run one after the other they would need more than 2.2 s of tool time alone plus overhead;
  // the bound is loose on purpose, the order assertions above are the real check.
  expect(elapsed).toBeLessThan(20_000);
});

test('R13, R14: sequential by run option runs each body after the previous one ended', async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [
    {
      stopReason: 'toolUse',
      content: [
        toolCall('first', 'bash', { command: 'sleep 1; echo first >> order.txt' }),
        toolCall('second', 'bash', { command: 'echo second >> order.txt' }),
      ],
    },
    { stopReason: 'stop', content: [text('done')] },
  ]);
  const job = await startTestJob(
    server,
    jobInput({ model, workspace: folder, toolExecution: 'sequential' }),
  );
  await job.handle.result();
  expect(readFileSync(join(folder, 'order.txt'), 'utf8')).toBe('first\nsecond\n');
  const events = await job.events(0);
  const toolEvents = events
    .filter((event) => event.type.startsWith('tool_execution'))
    .map((event) => `${event.type}:${'toolCallId' in event ? event.toolCallId : ''}`);
  expect(toolEvents).toEqual([
    'tool_execution_start:first',
    'tool_execution_end:first',
    'tool_execution_start:second',
    'tool_execution_end:second',
  ]);
});

test('R24: a retried body gets the same idempotency key on every attempt', async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [
    {
      stopReason: 'toolUse',
      content: [toolCall('f1', 'flaky', { file: 'out.txt', line: 'once' })],
    },
    { stopReason: 'stop', content: [text('done')] },
  ]);
  const job = await startTestJob(server, jobInput({ model, workspace: folder }));
  const result = await job.result();
  const attempts = readFileSync(join(folder, 'attempts.log'), 'utf8').trim().split('\n');
  // The key names the job, the turn and the call: a model may reuse a call id in a later turn.
  expect(attempts).toEqual([`${job.workflowId}/1/f1`, `${job.workflowId}/1/f1`]);
  expect(readFileSync(join(folder, 'out.txt'), 'utf8')).toBe('once\n');
  expect(resultText(resultsOf(result.messages)[0])).toBe('wrote after 2 attempts');
});

test('R24: a tool call id reused by the model in a later turn is a new call, not a retry', async () => {
  const folder = temporaryFolder();
  writeFileSync(join(folder, 'grow.txt'), 'a\n');
  const model = scriptedModel(folder, [
    {
      stopReason: 'toolUse',
      content: [toolCall('same-id', 'edit', { path: 'grow.txt', oldText: 'a', newText: 'aa' })],
    },
    {
      stopReason: 'toolUse',
      content: [toolCall('same-id', 'edit', { path: 'grow.txt', oldText: 'aa', newText: 'aaa' })],
    },
    { stopReason: 'stop', content: [text('done')] },
  ]);
  const job = await startTestJob(server, jobInput({ model, workspace: folder }));
  const result = await job.result();
  // Under a key without the turn, the second edit would have found the first one's journal entry
  // and returned its result without changing the file.
  expect(readFileSync(join(folder, 'grow.txt'), 'utf8')).toBe('aaa\n');
  expect(resultsOf(result.messages).map((message) => message.isError)).toEqual([false, false]);
});

test('a job asking for a tool the workflow does not know fails at once with a clear message', async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [{ stopReason: 'stop', content: [text('never')] }]);
  const job = await startTestJob(
    server,
    jobInput({ model, workspace: folder, tools: ['read', 'teleport'] }),
  );
  const failure: unknown = await job.handle.result().catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(WorkflowFailedError);
  expect(String((failure as WorkflowFailedError).cause?.message)).toContain(
    'Tool teleport is not known',
  );
});
