/**
 * Compaction of the model's context (issue #10 item 6): near the context window the job
 * summarises the older turns with a model call, later calls send the summary and the recent
 * turns, and the transcript, events and agent_end keep every message.
 */
import { existsSync } from 'node:fs';
import { WorkflowFailedError } from '@temporalio/client';
import { textOf } from '../../../src/core/index.js';
import { scriptedRequestsFolder } from '../../../src/providers/scripted-provider.js';
import { SUMMARY_MESSAGE_OPENING } from '../../../src/compaction/summary-request.js';
import { RELEASE_FEATURES_PATCH } from '../../../src/workflows/release-features.js';
import type { SequencedEvent } from '../../../src/workflows/job-types.js';
import {
  jobInput,
  scriptedModel,
  startTestJob,
  temporaryFolder,
  text,
  useAgentTestServer,
} from '../../support/agent-harness.js';
import { eventKinds, workflowRuns } from '../../support/workflow-history.js';
import {
  bashTurn,
  callIds,
  recordedCalls,
  recordRequests,
  resultIds,
  sentRequest,
  summaryAnswer,
} from './compaction-support.js';

const server = useAgentTestServer('compaction');

const PROMPT = `Build the thing. ${'Background the summary must carry. '.repeat(12)}`;
// Threshold: 1000 - 200 = 800 tokens. Kept: about 60 tokens of the newest messages.
const compaction = { contextWindow: 1000, reserveTokens: 200, keepRecentTokens: 60 };

function patchesOf(events: Awaited<ReturnType<typeof workflowRuns>>[number]['events']): string[] {
  return events.flatMap((event) => {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_patch') return [];
    return Object.values(marker.details ?? {}).flatMap((detail) =>
      (detail.payloads ?? []).map(
        (payload) =>
          (
            JSON.parse(Buffer.from(payload.data ?? new Uint8Array()).toString('utf8')) as {
              id: string;
            }
          ).id,
      ),
    );
  });
}

test('near the window the job summarises older turns; the next call gets summary + recent turns; the transcript keeps everything', async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [
    bashTurn('one', 200, 150), // call 0
    bashTurn('two', 200, 300), // call 1
    bashTurn('three', 200, 850), // call 2: the context is now over 800 tokens
    summaryAnswer('SUMMARY-ONE: the user wants the thing built; one and two ran.'), // call 3
    bashTurn('four', 200, 300), // call 4: sent the summary and turn three
    { stopReason: 'stop', content: [text('built')], usage: { input: 400, output: 5, costUsd: 0 } },
  ]);
  recordRequests(model);
  const job = await startTestJob(
    server,
    jobInput({ model, workspace: folder, prompt: PROMPT, compaction }),
  );
  const result = await job.result();
  expect(result.status.stopReason).toBe('stop');
  expect(recordedCalls(model)).toBe(6);

  // Calls before the threshold get the whole transcript.
  expect(callIds(sentRequest(model, 2).messages)).toEqual(['one', 'two']);
  expect(textOf(sentRequest(model, 2).messages[0]!)).toBe(PROMPT);

  // The summary call: no tools, the older turns as text, not the kept ones.
  const summaryRequest = sentRequest(model, 3);
  expect(summaryRequest.tools).toEqual([]);
  expect(summaryRequest.messages).toHaveLength(1);
  const summarised = textOf(summaryRequest.messages[0]!);
  expect(summarised).toContain('Build the thing.');
  expect(summarised).toContain('turn one');
  expect(summarised).toContain('turn two');
  expect(summarised).not.toContain('turn three');

  // The next turn: the summary as a user message, then turn three whole (call and result).
  const afterCompaction = sentRequest(model, 4);
  const [first, ...kept] = afterCompaction.messages;
  expect(first?.role).toBe('user');
  expect(textOf(first!)).toContain(SUMMARY_MESSAGE_OPENING);
  expect(textOf(first!)).toContain('SUMMARY-ONE');
  expect(callIds(kept)).toEqual(['three']);
  expect(resultIds(kept)).toEqual(['three']);
  expect(afterCompaction.messages.some((message) => textOf(message) === PROMPT)).toBe(false);
  expect(afterCompaction.tools.length).toBeGreaterThan(0);
  // And the last call: summary, turn three, turn four.
  expect(callIds(sentRequest(model, 5).messages)).toEqual(['three', 'four']);

  // The transcript holds every message: prompt, four turns with results, the answer.
  const transcript = await job.transcript();
  expect(transcript).toEqual(result.messages);
  expect(textOf(transcript[0]!)).toBe(PROMPT);
  expect(callIds(transcript)).toEqual(['one', 'two', 'three', 'four']);
  expect(resultIds(transcript)).toEqual(['one', 'two', 'three', 'four']);
  expect(transcript).toHaveLength(10);
  expect(transcript.some((message) => textOf(message).includes('SUMMARY-ONE'))).toBe(false);

  // Followers see the compaction; agent_end still lists every message of the run.
  const events = await job.events(0, 10_000);
  const compactions = events.filter(
    (event): event is Extract<SequencedEvent, { type: 'compaction' }> =>
      event.type === 'compaction',
  );
  expect(compactions).toHaveLength(1);
  const [event] = compactions;
  expect(event?.summarised).toEqual({ start: 0, end: 5 });
  expect(event?.contextWindow).toBe(1000);
  expect(event?.tokensBefore).toBeGreaterThan(800);
  expect(event?.tokensAfter).toBeLessThan(event?.tokensBefore ?? 0);
  expect(event?.summary).toBe('SUMMARY-ONE: the user wants the thing built; one and two ran.');
  const end = events.at(-1);
  expect(end?.type).toBe('agent_end');
  expect(end?.type === 'agent_end' ? end.messages : []).toEqual(transcript);

  // The summary is a model call (usage and call count) but not a turn.
  expect(result.status.turns).toBe(5);
  expect(result.status.modelCalls).toBe(6);
  expect(result.status.compactions).toBe(1);
  expect(result.status.usage.input).toBe(150 + 300 + 850 + 500 + 300 + 400);
  expect(result.status.usage.cost.total).toBeCloseTo(0.001);

  const [run] = await workflowRuns(server.environment.client, job.handle);
  // The release's one patch stands for compaction's own.
  expect(patchesOf(run!.events)).toEqual([RELEASE_FEATURES_PATCH]);
  expect(eventKinds(run!.events)).not.toContain('workflowTaskFailed');
});

test('a job that stays under the window never compacts', async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [
    bashTurn('one', 200, 150),
    { stopReason: 'stop', content: [text('done')], usage: { input: 300, output: 5, costUsd: 0 } },
  ]);
  recordRequests(model);
  const job = await startTestJob(
    server,
    jobInput({ model, workspace: folder, prompt: PROMPT, compaction }),
  );
  const result = await job.result();
  expect(result.status.stopReason).toBe('stop');
  expect(result.status.compactions).toBeUndefined();
  expect(recordedCalls(model)).toBe(2);
  expect(textOf(sentRequest(model, 1).messages[0]!)).toBe(PROMPT);
  const [run] = await workflowRuns(server.environment.client, job.handle);
  expect(patchesOf(run!.events)).toEqual([RELEASE_FEATURES_PATCH]);
});

test('a second compaction folds the first summary into the new one', async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [
    bashTurn('one', 200, 150), // 0
    bashTurn('two', 200, 850), // 1: over
    summaryAnswer('SUMMARY-ONE'), // 2
    bashTurn('three', 200, 300), // 3
    bashTurn('four', 200, 900), // 4: over again
    summaryAnswer('SUMMARY-TWO'), // 5
    { stopReason: 'stop', content: [text('done')], usage: { input: 300, output: 5, costUsd: 0 } },
  ]);
  recordRequests(model);
  const job = await startTestJob(
    server,
    jobInput({ model, workspace: folder, prompt: PROMPT, compaction }),
  );
  const result = await job.result();
  expect(result.status.stopReason).toBe('stop');
  expect(result.status.compactions).toBe(2);

  const secondSummaryRequest = textOf(sentRequest(model, 5).messages[0]!);
  expect(secondSummaryRequest).toContain('<earlier-summary>\nSUMMARY-ONE\n</earlier-summary>');
  expect(secondSummaryRequest).toContain('turn two');
  expect(secondSummaryRequest).toContain('turn three');
  expect(secondSummaryRequest).not.toContain('Build the thing.');
  expect(secondSummaryRequest).not.toContain('turn four');

  const last = sentRequest(model, 6).messages;
  expect(textOf(last[0]!)).toContain('SUMMARY-TWO');
  expect(last.some((message) => textOf(message).includes('SUMMARY-ONE'))).toBe(false);
  expect(callIds(last)).toEqual(['four']);

  const events = await job.events(0, 10_000);
  expect(
    events.flatMap((event) => (event.type === 'compaction' ? [event.summarised] : [])),
  ).toEqual([
    { start: 0, end: 3 },
    { start: 3, end: 7 },
  ]);
  expect(callIds(await job.transcript())).toEqual(['one', 'two', 'three', 'four']);
});

test('R21: cancelling during the summary call ends the turn as aborted; no further model call', async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [
    bashTurn('one', 200, 900), // call 0: over the threshold at once
    { ...summaryAnswer('never'), delayMs: 60_000 }, // call 1: the summary, cancelled
    { stopReason: 'stop', content: [text('never either')] },
  ]);
  recordRequests(model);
  const job = await startTestJob(
    server,
    jobInput({ model, workspace: folder, prompt: PROMPT, compaction }),
  );
  const summaryRequestFile = `${scriptedRequestsFolder(model.slice('scripted:'.length))}/1.json`;
  for (let waited = 0; !existsSync(summaryRequestFile); waited += 100) {
    if (waited > 20_000) throw new Error('the summary call never started');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await job.cancel();
  await expect(job.handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
  expect(recordedCalls(model)).toBe(2);
  const messages = await job.transcript();
  expect(messages.at(-1)).toMatchObject({ role: 'assistant', stopReason: 'aborted' });
  expect(callIds(messages)).toEqual(['one']);
  const events = await job.events(0);
  expect(events.some((event) => event.type === 'compaction')).toBe(false);
  expect(events.map((event) => event.type).slice(-2)).toEqual(['turn_end', 'agent_end']);
});

test('a summary call that fails leaves the context whole: the job goes on and tries again before the next call', async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [
    bashTurn('one', 200, 150), // call 0
    bashTurn('two', 200, 850), // call 1: over
    { stopReason: 'error', content: [], errorMessage: 'summariser down' }, // call 2: fails
    bashTurn('three', 200, 850), // call 3: sent the whole transcript
    summaryAnswer('SUMMARY-AFTER-RETRY'), // call 4: the next try works
    { stopReason: 'stop', content: [text('done')], usage: { input: 300, output: 5, costUsd: 0 } },
  ]);
  recordRequests(model);
  const job = await startTestJob(
    server,
    jobInput({ model, workspace: folder, prompt: PROMPT, compaction }),
  );
  const result = await job.result();
  expect(result.status.stopReason).toBe('stop');
  expect(recordedCalls(model)).toBe(6);
  const afterFailure = sentRequest(model, 3).messages;
  expect(textOf(afterFailure[0]!)).toBe(PROMPT);
  expect(callIds(afterFailure)).toEqual(['one', 'two']);
  const last = sentRequest(model, 5).messages;
  expect(textOf(last[0]!)).toContain('SUMMARY-AFTER-RETRY');
  expect(result.status.compactions).toBe(1);
  expect(result.status.modelCalls).toBe(6);
  expect(result.status.turns).toBe(4);
  const events = await job.events(0, 10_000);
  expect(events.filter((event) => event.type === 'compaction')).toHaveLength(1);
});
