import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startJob } from '../src/client/job-client.js';
import type { JobStore } from '../src/store/job-store.js';
import { createAgentWorker } from '../src/worker/agent-worker.js';
import { historyFacts } from './history.js';
import { StreamingProvider } from './streaming-provider.js';
import { MODEL_CALL_ACTIVITIES } from '../src/workflows/model-call-activities.js';
import { restoreVariable } from './environment-variables.js';

export interface StreamingScenario {
  /** Tokens per answer, `tokenIntervalMs` apart. */
  tokens: number;
  tokenIntervalMs: number;
  /** Turns with a bash call before the final answer, in the history measure. */
  toolTurns: number;
}

function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] as number;
}

/**
 * Live streaming: (1) how long a token takes from the fake provider writing it to a follower
 * (`AgentJob.follow` with `live`, as `dar run` and `dar events --follow` do) getting it, on the
 * embedded file store; (2) history bytes per turn of the same job with streaming on and off
 * (`DAR_STREAMING`), which should not differ: deltas never enter history.
 */
export async function benchStreaming(
  environment: TestWorkflowEnvironment,
  store: JobStore,
  scenario: StreamingScenario,
) {
  const provider = await StreamingProvider.start(scenario);
  const saved = { base: process.env.DAR_OPENAI_BASE_URL, streaming: process.env.DAR_STREAMING };
  process.env.DAR_OPENAI_BASE_URL = provider.baseUrl;
  const taskQueue = `bench-streaming-${Date.now()}`;
  const worker = await createAgentWorker({
    connection: environment.nativeConnection,
    taskQueue,
    store,
  });
  const folder = mkdtempSync(join(tmpdir(), 'dar-bench-streaming-'));
  const runJob = async (id: string, onToken?: (index: number, at: number) => void) => {
    const job = await startJob(
      environment.client,
      {
        prompt: 'talk',
        model: 'openai-compatible:bench-model',
        workspace: folder,
        tools: ['bash'],
      },
      { taskQueue, workflowId: `${taskQueue}-${id}`, store },
    );
    await job.follow(() => undefined, {
      live: {
        onLive: (event) => {
          if (event.type !== 'message_update') return;
          const inner = event.assistantMessageEvent;
          if (inner.type !== 'text_delta') return;
          const at = Date.now();
          for (const match of inner.delta.matchAll(/t(\d+) /g)) onToken?.(Number(match[1]), at);
        },
      },
    });
    await job.handle.result();
    return job;
  };
  try {
    return await worker.runUntil(async () => {
      const latencies: number[] = [];
      await runJob('latency', (index, at) => {
        const sent = provider.sentAt[index];
        if (sent !== undefined) latencies.push(at - sent);
      });
      const history: Record<string, number> = {};
      for (const streaming of ['on', 'off']) {
        process.env.DAR_STREAMING = streaming;
        const job = await runJob(`history-${streaming}`);
        const facts = await historyFacts(environment.client, job.workflowId, MODEL_CALL_ACTIVITIES);
        history[streaming] = facts.bytes / (scenario.toolTurns + 1);
      }
      latencies.sort((left, right) => left - right);
      return {
        tokens: latencies.length,
        tokenIntervalMs: scenario.tokenIntervalMs,
        latencyMedianMs: percentile(latencies, 0.5),
        latencyP95Ms: percentile(latencies, 0.95),
        latencyMaxMs: latencies.at(-1) ?? Number.NaN,
        historyBytesPerTurnOn: Math.round(history.on ?? 0),
        historyBytesPerTurnOff: Math.round(history.off ?? 0),
        historyRatioOnOff: Math.round(((history.on ?? 0) / (history.off ?? 1)) * 1000) / 1000,
      };
    });
  } finally {
    restoreVariable('DAR_STREAMING', saved.streaming);
    restoreVariable('DAR_OPENAI_BASE_URL', saved.base);
    await provider.close();
  }
}
