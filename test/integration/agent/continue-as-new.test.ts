import { mkdirSync, readFileSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import { join } from 'node:path';
import type { Message } from '../../../src/core/index.js';
import { scriptedRequestsFolder } from '../../../src/providers/scripted-provider.js';
import { STORE_CARRIED_MESSAGES_PATCH } from '../../../src/workflows/carried-messages.js';
import { CONTINUE_AS_NEW_TOO_LARGE_PATCH } from '../../../src/workflows/continue-as-new-size.js';
import { batchBudgetSignal, followUpSignal } from '../../../src/workflows/definitions.js';
import {
  jobInput,
  scriptedModel,
  startTestJob,
  temporaryFolder,
  text,
  toolCall,
  useAgentTestServer,
} from '../../support/agent-harness.js';

// A low threshold makes Temporal suggest continue-as-new after a few turns.
const server = useAgentTestServer('continue-as-new', [
  '--dynamic-config-value',
  'limit.historyCount.suggestContinueAsNew=30',
]);

test('a long job continues as new: transcript, queues and event numbering carry over', async () => {
  const folder = temporaryFolder();
  const turns = 12;
  const answers = Array.from({ length: turns }, (_, index) => ({
    stopReason: 'toolUse' as const,
    content: [toolCall(`call-${index}`, 'bash', { command: `echo turn ${index}` })],
  }));
  const model = scriptedModel(folder, [
    ...answers,
    { stopReason: 'stop', content: [text('all done')] },
  ]);
  const job = await startTestJob(server, jobInput({ model, workspace: folder }));
  const result = await job.result();

  expect(result.status.continuedAsNew).toBeGreaterThan(0);
  expect(result.status.modelCalls).toBe(turns + 1);
  const messages: Message[] = result.messages;
  const callIds = messages.flatMap((message) =>
    message.role === 'toolResult' ? [message.toolCallId] : [],
  );
  // Every turn's result exactly once, in order: nothing lost, nothing repeated.
  expect(callIds).toEqual(answers.map((_, index) => `call-${index}`));
  expect(messages.filter((message) => message.role === 'user')).toHaveLength(1);

  const events = await job.events(0, 100_000);
  expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  expect(events.filter((event) => event.type === 'agent_start')).toHaveLength(1);
  expect(events.filter((event) => event.type === 'agent_end')).toHaveLength(1);
  expect(events.filter((event) => event.type === 'turn_start')).toHaveLength(turns + 1);
  expect(events.filter((event) => event.type === 'turn_end')).toHaveLength(turns + 1);
});

test('R20: a budget holds across continue-as-new: turns count on, wall time from the first run', async () => {
  const folder = temporaryFolder();
  const answers = Array.from({ length: 12 }, (_, index) => ({
    stopReason: 'toolUse' as const,
    content: [toolCall(`call-${index}`, 'bash', { command: `echo turn ${index}` })],
  }));
  const model = scriptedModel(folder, answers);
  const job = await startTestJob(
    server,
    jobInput({ model, workspace: folder, budget: { maxTurns: 8, maxWallTimeMs: 600_000 } }),
  );
  const result = await job.result();
  expect(result.status.continuedAsNew).toBeGreaterThan(0);
  expect(result.status.budgetExceeded).toEqual({ limit: 'turns', used: 8, max: 8 });
  expect(result.outcome).toMatchObject({
    status: 'failed',
    error: 'Budget exceeded: turns 8 of 8',
  });
  expect(result.status.modelCalls).toBe(8);
  // The start time was carried: it is the first run's, earlier than the last run's start.
  const lastRunStart = (await job.handle.describe()).startTime.getTime();
  expect(result.status.startedAt).toBeLessThan(lastRunStart);
  const events = await job.events(0, 100_000);
  expect(events.at(-1)?.type).toBe('agent_end');
});

test('R20: a job that continued as new still ends at a turn boundary when its batch spends its budget', async () => {
  const folder = temporaryFolder();
  const answers = Array.from({ length: 30 }, (_, index) => ({
    stopReason: 'toolUse' as const,
    content: [toolCall(`call-${index}`, 'bash', { command: `echo turn ${index}` })],
    delayMs: 150,
  }));
  const model = scriptedModel(folder, answers);
  const job = await startTestJob(server, jobInput({ model, workspace: folder }));
  for (let attempt = 0; (await job.status()).continuedAsNew === 0; attempt += 1) {
    if (attempt > 200) throw new Error('the job never continued as new');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const exceeded = { limit: 'tokens' as const, used: 5200, max: 5000 };
  // Sent by id, as `dar batch` does: it reaches the job's current run.
  await job.handle.signal(batchBudgetSignal, exceeded);
  const result = await job.result();
  expect(result.status.continuedAsNew).toBeGreaterThan(0);
  expect(result.outcome).toMatchObject({
    status: 'failed',
    error: 'Batch budget exceeded: tokens 5200 of 5000',
    budgetExceeded: { ...exceeded, scope: 'batch' },
  });
  expect(result.status.modelCalls).toBeLessThan(30);
  const events = await job.events(0, 100_000);
  expect(events.slice(-2).map((event) => event.type)).toEqual(['turn_end', 'agent_end']);
  const starts = events.filter((event) => event.type === 'tool_execution_start').length;
  expect(events.filter((event) => event.type === 'tool_execution_end')).toHaveLength(starts);
});

/** The content of each user message, in order. */
function userTexts(messages: readonly Message[]): Message['content'][] {
  return messages.flatMap((message) => (message.role === 'user' ? [message.content] : []));
}

/**
 * A script of `toolTurns` tool turns (the first slow enough for messages sent meanwhile to be
 * queued), a final answer, then one answer for each follow-up (taken one at a time when the
 * run would stop).
 */
function toolTurnsThenFollowUps(toolTurns: number, followUps: string[], firstDelayMs: number) {
  return [
    {
      stopReason: 'toolUse' as const,
      content: [toolCall('call-0', 'bash', { command: 'echo turn 0' })],
      delayMs: firstDelayMs,
    },
    ...Array.from({ length: toolTurns - 1 }, (_, index) => ({
      stopReason: 'toolUse' as const,
      content: [toolCall(`call-${index + 1}`, 'bash', { command: `echo turn ${index + 1}` })],
    })),
    { stopReason: 'stop' as const, content: [text('done with the tools')] },
    ...followUps.map((_, index) => ({
      stopReason: 'stop' as const,
      content: [text(`read follow-up ${index}`)],
    })),
  ];
}

test('R20: follow-ups queued while a long run works are carried by reference: together over the payload limit, the job still continues as new', async () => {
  const folder = temporaryFolder();
  const toolTurns = 8;
  const followUps = ['a', 'b', 'c'].map((letter) => letter.repeat(900_000));
  const model = scriptedModel(folder, toolTurnsThenFollowUps(toolTurns, followUps, 2000));
  const scriptPath = model.slice('scripted:'.length);
  mkdirSync(scriptedRequestsFolder(scriptPath));
  // A prompt larger than a carried input may be: it is the transcript's first message.
  const prompt = `start ${'p'.repeat(100_000)}`;
  const job = await startTestJob(server, jobInput({ model, workspace: folder, prompt }));
  // Sent as a client other than `AgentJob` may send them, past its message length limit.
  for (const followUp of followUps) await job.handle.signal(followUpSignal, followUp);

  // 2.7 MB of follow-ups were queued when the job continued as new: carried by value, the
  // server refuses the next run's input and the workflow task fails for good.
  const result = await job.result();
  expect(result.status.continuedAsNew).toBeGreaterThan(0);
  expect(result.status.modelCalls).toBe(toolTurns + 1 + followUps.length);
  expect(userTexts(result.messages)).toEqual([prompt, ...followUps]);

  // The model got each follow-up whole, after the continue-as-new.
  const lastRequest = JSON.parse(
    readFileSync(join(scriptedRequestsFolder(scriptPath), `${toolTurns + 3}.json`), 'utf8'),
  ) as { messages: Message[] };
  expect(userTexts(lastRequest.messages)).toEqual([prompt, ...followUps]);

  // The first run handed on references: its continue-as-new input is small.
  const events = await firstRunHistory(job.workflowId);
  const continued = events.find((event) => event.workflowExecutionContinuedAsNewEventAttributes);
  const carriedInput =
    continued?.workflowExecutionContinuedAsNewEventAttributes?.input?.payloads?.[0]?.data;
  expect(carriedInput?.length).toBeGreaterThan(0);
  expect(carriedInput?.length).toBeLessThan(16 * 1024);
  const markers = events.flatMap((event) =>
    (event.markerRecordedEventAttributes?.details?.['patch-data']?.payloads ?? []).map((payload) =>
      Buffer.from(payload.data ?? new Uint8Array()).toString('utf8'),
    ),
  );
  expect(markers.join()).toContain(STORE_CARRIED_MESSAGES_PATCH);

  // Readers get the follow-ups whole in their events too.
  const jobEvents = await job.events(0, 100_000);
  const userEnds = jobEvents.flatMap((event) =>
    event.type === 'message_end' && event.message.role === 'user' ? [event.message.content] : [],
  );
  expect(userEnds).toEqual([prompt, ...followUps]);
});

test('a run whose next input would pass the payload limit goes on instead of continuing as new, and the job completes', async () => {
  const folder = temporaryFolder();
  const toolTurns = 14;
  // Under the limit itself (the job starts, its first model call goes), but with the queued
  // follow-ups the next run's input would pass it: the server would refuse it for good.
  const systemPrompt = 's'.repeat(2_085_000);
  const followUps = ['a', 'b', 'c'].map((letter) => letter.repeat(5_000));
  const model = scriptedModel(folder, toolTurnsThenFollowUps(toolTurns, followUps, 1500));
  const job = await startTestJob(server, jobInput({ model, workspace: folder, systemPrompt }));
  for (const followUp of followUps) await job.followUp(followUp);

  const result = await job.result();
  expect(result.status.continuedAsNew).toBe(0);
  expect(result.status.modelCalls).toBe(toolTurns + 1 + followUps.length);
  expect(userTexts(result.messages)).toEqual(['do the task', ...followUps]);
  // The history holds the system prompt several times (the job's input, the model calls that
  // send it by value): past gRPC's default 4 MB for one answer, read over a connection that
  // takes more.
  const connection = await Connection.connect({
    address: server.environment.address,
    channelArgs: { 'grpc.max_receive_message_length': 64 * 1024 * 1024 },
  });
  const history = await new Client({ connection }).workflow
    .getHandle(job.workflowId)
    .fetchHistory();
  await connection.close();
  const events = history.events ?? [];
  expect(events.filter((event) => event.workflowTaskFailedEventAttributes)).toEqual([]);
  const markers = events.flatMap((event) =>
    (event.markerRecordedEventAttributes?.details?.['patch-data']?.payloads ?? []).map((payload) =>
      Buffer.from(payload.data ?? new Uint8Array()).toString('utf8'),
    ),
  );
  expect(markers.join()).toContain(CONTINUE_AS_NEW_TOO_LARGE_PATCH);
  // Every event of the run, once, in order.
  const jobEvents = await job.events(0, 100_000);
  expect(jobEvents.map((event) => event.seq)).toEqual(jobEvents.map((_, index) => index + 1));
  expect(jobEvents.filter((event) => event.type === 'agent_end')).toHaveLength(1);
});

/** The history of a job's first run, found by walking back from its current run. */
async function firstRunHistory(workflowId: string) {
  let runId: string | undefined;
  for (;;) {
    const history = await server.environment.client.workflow
      .getHandle(workflowId, runId)
      .fetchHistory();
    const events = history.events ?? [];
    const previous =
      events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? '';
    if (previous === '') return events;
    runId = previous;
  }
}
