import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startJob } from '../src/client/job-client.js';
import type { FileJobStore } from '../src/store/file/file-job-store.js';
import type { AgentJobResult } from '../src/workflows/job-types.js';
import { folderBytes } from './bench-environment.js';
import { historyFacts } from './history.js';
import { ratio, round } from './statistics.js';
import { MODEL_CALL_ACTIVITIES } from '../src/workflows/model-call-activities.js';

/**
 * Each turn says something of about `textBytes` bytes and calls the no-op tool: the transcript
 * grows every turn. Every turn's text is different, so the store keeps each one.
 */
function writeGrowingScript(folder: string, turns: number, textBytes: number): string {
  const sentence = 'I looked at the next file and will now record what I found in it. ';
  const filler = sentence.repeat(Math.max(1, Math.round(textBytes / sentence.length)));
  const answers: unknown[] = Array.from({ length: turns }, (_, turn) => ({
    stopReason: 'toolUse',
    content: [
      { type: 'text', text: `Turn ${turn}: ${filler}` },
      { type: 'toolCall', id: `t${turn}`, name: 'noop', arguments: { index: turn } },
    ],
  }));
  answers.push({ stopReason: 'stop', content: [{ type: 'text', text: 'done' }] });
  const path = join(folder, `growing-${turns}-${textBytes}.json`);
  writeFileSync(path, JSON.stringify(answers));
  return path;
}

/** Every run of a workflow id (continue-as-new makes several), oldest first. */
async function runIds(environment: TestWorkflowEnvironment, workflowId: string): Promise<string[]> {
  const runs: { runId: string; start: number }[] = [];
  for await (const execution of environment.client.workflow.list({
    query: `WorkflowId = '${workflowId}'`,
  })) {
    runs.push({ runId: execution.runId, start: execution.startTime.getTime() });
  }
  return runs.sort((a, b) => a.start - b.start).map((run) => run.runId);
}

export interface GrowingJobMeasure {
  turns: number;
  runs: number;
  events: number;
  wallSeconds: number;
  /** Encoded history of every run of the job. */
  historyBytes: number;
  historyBytesPerTurn: number;
  largestPayloadBytes: number;
  /** What the job added to the job store's folder (objects, events, records). */
  storeBytes: number;
  storeBytesPerTurn: number;
}

/** The tools a job offers the model: the no-op tool alone, or with the built-in tools too. */
export type OfferedTools = 'noop' | 'noop and built-in';

const OFFERED_TOOLS: Record<OfferedTools, string[]> = {
  noop: ['noop'],
  // A real job's setup: the built-in tools' schemas are about 3 KB.
  'noop and built-in': ['noop', 'read', 'write', 'edit', 'ls', 'bash'],
};

/**
 * Runs one job of `turns` tool turns (plus the final answer), each adding about `textBytes` of
 * text, alone on the worker; the store's growth over the job is the job's store bytes.
 */
export async function measureGrowingJob(
  environment: TestWorkflowEnvironment,
  taskQueue: string,
  store: FileJobStore,
  turns: number,
  textBytes: number,
  offered: OfferedTools = 'noop',
): Promise<GrowingJobMeasure> {
  const folder = mkdtempSync(join(tmpdir(), 'dar-bench-history-'));
  const script = writeGrowingScript(folder, turns, textBytes);
  const workflowId = `history-${turns}-${Date.now()}`;
  const storeBefore = folderBytes(store.folder);
  const started = performance.now();
  const job = await startJob(
    environment.client,
    { prompt: 'go', model: `scripted:${script}`, workspace: folder, tools: OFFERED_TOOLS[offered] },
    { taskQueue, workflowId },
  );
  const result = (await job.handle.result()) as AgentJobResult;
  const wallSeconds = (performance.now() - started) / 1000;
  const storeBytes = folderBytes(store.folder) - storeBefore;
  // Visibility is eventually consistent: wait until every run is listed.
  let ids: string[] = [];
  for (let attempt = 0; attempt < 50; attempt += 1) {
    ids = await runIds(environment, workflowId);
    if (ids.length === result.status.continuedAsNew + 1) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  let bytes = 0;
  let events = 0;
  let largest = 0;
  for (const runId of ids) {
    const facts = await historyFacts(environment.client, workflowId, MODEL_CALL_ACTIVITIES, runId);
    bytes += facts.bytes;
    events += facts.events;
    largest = Math.max(largest, facts.largestPayloadBytes);
  }
  const allTurns = turns + 1;
  return {
    turns: allTurns,
    runs: ids.length,
    events,
    wallSeconds: round(wallSeconds, 1),
    historyBytes: bytes,
    historyBytesPerTurn: round(bytes / allTurns, 0),
    largestPayloadBytes: largest,
    storeBytes,
    storeBytesPerTurn: round(storeBytes / allTurns, 0),
  };
}

/**
 * History growth: one job per size, each turn adding a sentence (about 200 bytes) and a tool
 * call. History bytes per turn should stay flat (the transcript is in the store, history holds
 * references), the largest payload small, and the store grow linearly (each message once).
 */
export async function benchHistoryGrowth(
  environment: TestWorkflowEnvironment,
  taskQueue: string,
  store: FileJobStore,
  turnCounts: number[],
) {
  const rows = [];
  for (const turns of turnCounts) {
    rows.push(await measureGrowingJob(environment, taskQueue, store, turns, 200));
  }
  // A real job's setup (system prompt and the built-in tools) at the two smallest sizes: stored
  // once a run, it adds about as much history per turn as the no-op tool's does.
  const withBuiltinTools = [];
  for (const turns of turnCounts.slice(0, 2)) {
    withBuiltinTools.push(
      await measureGrowingJob(environment, taskQueue, store, turns, 200, 'noop and built-in'),
    );
  }
  const first = rows[0];
  const last = rows.at(-1);
  return {
    rows,
    withBuiltinTools,
    // Targets: at most 1.5x at the largest size; the largest payload under 64 KB everywhere.
    historyBytesPerTurnRatio:
      first && last ? ratio(last.historyBytesPerTurn, first.historyBytesPerTurn) : 'n/a',
    storeBytesPerTurnRatio:
      first && last ? ratio(last.storeBytesPerTurn, first.storeBytesPerTurn) : 'n/a',
    largestPayloadBytes: Math.max(0, ...rows.map((row) => row.largestPayloadBytes)),
  };
}
