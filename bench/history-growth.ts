import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startJob } from '../src/client/job-client.js';
import type { AgentJobResult } from '../src/workflows/job-types.js';
import { historyFacts } from './history.js';
import { round } from './statistics.js';

/** Each turn says a sentence and calls the no-op tool: the transcript grows every turn. */
function writeGrowingScript(folder: string, turns: number): string {
  const sentence = 'I looked at the next file and will now record what I found in it. '.repeat(3);
  const answers: unknown[] = Array.from({ length: turns }, (_, turn) => ({
    stopReason: 'toolUse',
    content: [
      { type: 'text', text: `Turn ${turn}: ${sentence}` },
      { type: 'toolCall', id: `t${turn}`, name: 'noop', arguments: { index: turn } },
    ],
  }));
  answers.push({ stopReason: 'stop', content: [{ type: 'text', text: 'done' }] });
  const path = join(folder, `growing-${turns}.json`);
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

/**
 * History growth: for jobs of 10, 50 and 200 turns, the history bytes per turn, the total over
 * every run of the job, and the largest single payload.
 */
export async function benchHistoryGrowth(
  environment: TestWorkflowEnvironment,
  taskQueue: string,
  turnCounts: number[],
) {
  const folder = mkdtempSync(join(tmpdir(), 'dar-bench-history-'));
  const rows = [];
  for (const turns of turnCounts) {
    const script = writeGrowingScript(folder, turns);
    const workflowId = `history-${turns}-${Date.now()}`;
    const job = await startJob(
      environment.client,
      { prompt: 'go', model: `scripted:${script}`, workspace: folder, tools: ['noop'] },
      { taskQueue, workflowId },
    );
    const result = (await job.handle.result()) as AgentJobResult;
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
      const facts = await historyFacts(environment.client, workflowId, 'callModel', runId);
      bytes += facts.bytes;
      events += facts.events;
      largest = Math.max(largest, facts.largestPayloadBytes);
    }
    rows.push({
      turns: turns + 1,
      runs: ids.length,
      events,
      totalBytes: bytes,
      bytesPerTurn: round(bytes / (turns + 1), 0),
      largestPayloadBytes: largest,
    });
  }
  return rows;
}
