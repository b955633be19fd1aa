/**
 * Continue-as-new with the job store: each new run starts from references and counters only,
 * and nothing of the transcript or the event stream is lost or repeated across runs.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Message } from '../../../src/core/index.js';
import type { SequencedEvent } from '../../../src/workflows/job-types.js';
import {
  jobInput,
  scriptedModel,
  startTestJob,
  temporaryFolder,
  text,
  toolCall,
  type AgentTestServer,
} from '../../support/agent-harness.js';
import { useAgentTestServer } from '../../support/agent-harness.js';
import {
  eventKinds,
  payloadSizes,
  startInputSize,
  workflowRuns,
} from '../../support/workflow-history.js';

// A very low threshold makes Temporal suggest continue-as-new every two turns or so.
const server = useAgentTestServer('continue-as-new-store', [
  '--dynamic-config-value',
  'limit.historyCount.suggestContinueAsNew=20',
]);

const CARRIED_INPUT_LIMIT = 16 * 1024;
const PAYLOAD_LIMIT = 64 * 1024;

function bashTurns(prefix: string, count: number) {
  return Array.from({ length: count }, (_, index) => ({
    stopReason: 'toolUse' as const,
    content: [
      text(`${prefix} turn ${index}`),
      toolCall(`${prefix}-${index}`, 'bash', { command: `echo ${prefix} ${index}` }),
    ],
  }));
}

function runsOf(testServer: AgentTestServer, job: Awaited<ReturnType<typeof startTestJob>>) {
  return workflowRuns(testServer.environment.client, job.handle);
}

/** Each agent_end's messages must be exactly the transcript from its run's first message. */
function expectRunsCoverTranscript(events: SequencedEvent[], transcript: Message[]): void {
  let start = 0;
  for (const event of events) {
    if (event.type !== 'agent_end') continue;
    expect(event.messages.length).toBeGreaterThan(0);
    expect(event.messages).toEqual(transcript.slice(start, start + event.messages.length));
    start += event.messages.length;
  }
  expect(start).toBe(transcript.length);
}

test('continue-as-new carries references only: every run starts from a small input, and transcript, events and agent_end stay whole', async () => {
  const folder = temporaryFolder();
  const firstRun = bashTurns('first', 10);
  const secondRun = bashTurns('second', 6);
  const model = scriptedModel(folder, [
    ...firstRun,
    { stopReason: 'stop', content: [text('first run done')] },
    ...secondRun,
    { stopReason: 'stop', content: [text('second run done')] },
  ]);
  // Kept open: a follow-up starts a second run of the agent (agent_start .. agent_end again).
  const job = await startTestJob(server, jobInput({ model, workspace: folder, keepOpenMs: 5000 }));
  await job.follow(() => undefined, { pollMs: 50 });
  await job.followUp('one more thing');
  const result = await job.result();

  expect(result.status.continuedAsNew).toBeGreaterThanOrEqual(3);
  const runs = await runsOf(server, job);
  expect(runs).toHaveLength(result.status.continuedAsNew + 1);
  for (const run of runs.slice(1)) expect(startInputSize(run)).toBeLessThan(CARRIED_INPUT_LIMIT);
  for (const run of runs) {
    expect(eventKinds(run.events)).not.toContain('workflowTaskFailed');
    expect(Math.max(...run.events.flatMap((event) => payloadSizes(event)))).toBeLessThan(
      PAYLOAD_LIMIT,
    );
  }

  // The stored transcript: every message exactly once, in order.
  const transcript = result.messages;
  const expectedCalls = [...firstRun, ...secondRun].map((_, index) =>
    index < firstRun.length ? `first-${index}` : `second-${index - firstRun.length}`,
  );
  expect(
    transcript.flatMap((message) => (message.role === 'toolResult' ? [message.toolCallId] : [])),
  ).toEqual(expectedCalls);
  expect(
    transcript.flatMap((message) =>
      message.role === 'assistant'
        ? message.content.flatMap((block) => (block.type === 'text' ? [block.text] : []))
        : [],
    ),
  ).toEqual([
    ...firstRun.map((_, index) => `first turn ${index}`),
    'first run done',
    ...secondRun.map((_, index) => `second turn ${index}`),
    'second run done',
  ]);
  expect(transcript.filter((message) => message.role === 'user')).toHaveLength(2);
  expect(await job.transcript()).toEqual(transcript);

  // Events: 1..n, one agent_start/agent_end pair per run of the agent, each agent_end whole.
  const events = await job.events(0, 100_000);
  expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  expect(
    events.flatMap((event) =>
      event.type === 'agent_start' || event.type === 'agent_end' ? [event.type] : [],
    ),
  ).toEqual(['agent_start', 'agent_end', 'agent_start', 'agent_end']);
  expect(events.at(-1)?.type).toBe('agent_end');
  expectRunsCoverTranscript(events, transcript);
});

test('two 1 MB files read in parallel, then continue-as-new: the job completes and agent_end holds every message', async () => {
  const folder = temporaryFolder();
  const line = `${'y'.repeat(99)}\n`;
  writeFileSync(join(folder, 'first.txt'), line.repeat(10_240));
  writeFileSync(join(folder, 'second.txt'), line.repeat(10_240));
  const model = scriptedModel(folder, [
    {
      stopReason: 'toolUse',
      content: [
        toolCall('read-first', 'read', { path: 'first.txt' }),
        toolCall('read-second', 'read', { path: 'second.txt' }),
      ],
    },
    ...bashTurns('after', 6),
    { stopReason: 'stop', content: [text('read both')] },
  ]);
  const job = await startTestJob(server, jobInput({ model, workspace: folder }));
  const result = await job.result();

  expect(result.status.continuedAsNew).toBeGreaterThan(0);
  const runs = await runsOf(server, job);
  for (const run of runs.slice(1)) expect(startInputSize(run)).toBeLessThan(CARRIED_INPUT_LIMIT);
  for (const run of runs) {
    expect(eventKinds(run.events)).not.toContain('workflowTaskFailed');
  }
  const transcript = result.messages;
  expect(
    transcript.flatMap((message) => (message.role === 'toolResult' ? [message.toolCallId] : [])),
  ).toEqual(['read-first', 'read-second', ...bashTurns('after', 6).map((_, i) => `after-${i}`)]);

  const events = await job.events(0, 100_000);
  expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  const ends = events.filter((event) => event.type === 'agent_end');
  expect(ends).toHaveLength(1);
  expectRunsCoverTranscript(events, transcript);
});
