/**
 * A compacted job stays compacted across continue-as-new: the next run's small input carries the
 * summary's reference and the cut, and its model calls go on sending summary + recent turns.
 */
import { textOf } from '../../../src/core/index.js';
import { SUMMARY_MESSAGE_OPENING } from '../../../src/compaction/summary-request.js';
import type { CarriedState } from '../../../src/workflows/job-types.js';
import {
  jobInput,
  scriptedModel,
  startTestJob,
  temporaryFolder,
  text,
  useAgentTestServer,
} from '../../support/agent-harness.js';
import {
  eventKinds,
  startInputSize,
  workflowRuns,
  type WorkflowRun,
} from '../../support/workflow-history.js';
import {
  bashTurn,
  callIds,
  recordedCalls,
  recordRequests,
  resultIds,
  sentRequest,
  summaryAnswer,
} from './compaction-support.js';

// A very low threshold makes Temporal suggest continue-as-new every two turns or so.
const server = useAgentTestServer('compaction-continue-as-new', [
  '--dynamic-config-value',
  'limit.historyCount.suggestContinueAsNew=20',
]);

const CARRIED_INPUT_LIMIT = 16 * 1024;

function carriedOf(run: WorkflowRun): CarriedState | undefined {
  const payload = run.events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  const input = JSON.parse(Buffer.from(payload?.data ?? new Uint8Array()).toString('utf8')) as {
    carried?: CarriedState;
  };
  return input.carried;
}

test('compaction survives continue-as-new: later runs carry the summary reference and keep sending summary + recent turns', async () => {
  const folder = temporaryFolder();
  const later = Array.from({ length: 8 }, (_, index) => `later-${index}`);
  const model = scriptedModel(folder, [
    bashTurn('one', 200, 150), // call 0
    bashTurn('two', 200, 850), // call 1: over 1000 - 200
    summaryAnswer('SUMMARY-ONE: keep going'), // call 2
    ...later.map((id) => bashTurn(id, 200, 300)), // calls 3..10
    { stopReason: 'stop', content: [text('done')], usage: { input: 300, output: 5, costUsd: 0 } },
  ]);
  recordRequests(model);
  const job = await startTestJob(
    server,
    jobInput({
      model,
      workspace: folder,
      prompt: 'Build the thing.',
      compaction: { contextWindow: 1000, reserveTokens: 200, keepRecentTokens: 60 },
    }),
  );
  const result = await job.result();
  expect(result.status.stopReason).toBe('stop');
  expect(result.status.compactions).toBe(1);
  expect(result.status.continuedAsNew).toBeGreaterThanOrEqual(2);
  expect(recordedCalls(model)).toBe(12);

  // Every run after the compaction started from a small input that names the summary.
  const runs = await workflowRuns(server.environment.client, job.handle);
  expect(runs).toHaveLength(result.status.continuedAsNew + 1);
  const carried = runs.slice(1).map(carriedOf);
  const summaryRefs = new Set(carried.flatMap((state) => state?.modelContext?.summaryRef ?? []));
  expect(summaryRefs.size).toBe(1);
  expect(carried.at(-1)?.modelContext?.keptFrom).toBe(3);
  for (const run of runs.slice(1)) expect(startInputSize(run)).toBeLessThan(CARRIED_INPUT_LIMIT);
  for (const run of runs) expect(eventKinds(run.events)).not.toContain('workflowTaskFailed');

  // Every turn after the compaction, in whichever run, sends the summary and turns from 'two' on.
  for (let index = 3; index <= 11; index += 1) {
    const messages = sentRequest(model, index).messages;
    expect(textOf(messages[0]!)).toContain(SUMMARY_MESSAGE_OPENING);
    expect(textOf(messages[0]!)).toContain('SUMMARY-ONE');
    expect(callIds(messages)).toEqual(['two', ...later.slice(0, index - 3)]);
    expect(messages.some((message) => textOf(message) === 'Build the thing.')).toBe(false);
  }

  // The transcript and the one agent_end hold every message.
  const transcript = await job.transcript();
  expect(callIds(transcript)).toEqual(['one', 'two', ...later]);
  expect(resultIds(transcript)).toEqual(['one', 'two', ...later]);
  expect(textOf(transcript[0]!)).toBe('Build the thing.');
  const events = await job.events(0, 100_000);
  expect(events.filter((event) => event.type === 'compaction')).toHaveLength(1);
  const ends = events.filter((event) => event.type === 'agent_end');
  expect(ends).toHaveLength(1);
  expect(ends[0]?.type === 'agent_end' ? ends[0].messages : []).toEqual(transcript);
});
