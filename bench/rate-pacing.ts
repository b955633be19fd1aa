import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createProviderPauses } from '../src/activities/provider-pauses.js';
import { startJob } from '../src/client/job-client.js';
import type { JobStore } from '../src/store/job-store.js';
import { createAgentWorker } from '../src/worker/agent-worker.js';
import type { ModelPacing } from '../src/worker/model-pacing.js';
import type { AgentJobResult } from '../src/workflows/job-types.js';
import { RateLimitedProvider } from './rate-limited-provider.js';
import { round } from './statistics.js';
import { restoreVariable } from './environment-variables.js';

export interface RatePacingCase {
  jobs: number;
  /** The provider's limit, requests per second. */
  providerRate: number;
}

interface SideMeasure {
  jobs: number;
  failedJobs: number;
  requests: number;
  limitedRequests: number;
  /** Share of the requests answered 429. */
  limitedShare: number;
  /** Answered requests per second, first answered to last. */
  throughputPerSecond: number;
  /** That throughput over the provider's limit. */
  throughputOfLimit: number;
  wallSeconds: number;
}

const PROVIDER = 'openai-compatible';

/** How a side's worker treats the provider: a rate on its queue, a pause on Retry-After. */
interface SideSettings {
  paced: boolean;
  pauseOnRetryAfter: boolean;
}

const UNPACED: SideSettings = { paced: false, pauseOnRetryAfter: false };
/** What a worker does unless told otherwise. */
const DEFAULTS: SideSettings = { paced: false, pauseOnRetryAfter: true };
const PACED: SideSettings = { paced: true, pauseOnRetryAfter: true };

/**
 * One side: `jobs` jobs of one model call each, started at once, against a fresh provider
 * limited to `providerRate` requests a second, on a fresh task queue and worker.
 */
async function measure(
  environment: TestWorkflowEnvironment,
  store: JobStore,
  scenario: RatePacingCase,
  { paced, pauseOnRetryAfter }: SideSettings,
): Promise<SideMeasure> {
  const provider = await RateLimitedProvider.start(scenario.providerRate);
  const saved = { url: process.env.DAR_OPENAI_BASE_URL, key: process.env.DAR_OPENAI_API_KEY };
  process.env.DAR_OPENAI_BASE_URL = provider.baseUrl;
  process.env.DAR_OPENAI_API_KEY = 'sk-bench';
  const taskQueue = `bench-rate-${paced ? 'paced' : 'unpaced'}-${pauseOnRetryAfter ? 'pause' : 'no-pause'}-${Date.now()}`;
  const modelPacing: ModelPacing = paced
    ? { [PROVIDER]: { ratePerSecond: scenario.providerRate } }
    : {};
  const worker = await createAgentWorker({
    connection: environment.nativeConnection,
    taskQueue,
    store,
    modelPacing,
    pauseOnRetryAfter,
    // Its own pauses and learned rate: what one side learned must not pace the next.
    providerPauses: createProviderPauses(),
    // Room for every job's model call at once: what limits the calls is the pacing.
    workerOptions: { maxConcurrentActivityTaskExecutions: scenario.jobs },
  });
  const folder = mkdtempSync(join(tmpdir(), 'dar-bench-rate-'));
  try {
    return await worker.runUntil(async () => {
      const started = performance.now();
      const jobs = await Promise.all(
        Array.from({ length: scenario.jobs }, (_, index) =>
          startJob(
            environment.client,
            {
              prompt: `task ${index}`,
              model: `${PROVIDER}:bench-model`,
              workspace: folder,
              tools: [],
            },
            { taskQueue, workflowId: `${taskQueue}-${index}`, store },
          ),
        ),
      );
      const outcomes = await Promise.all(
        jobs.map(async (job) => {
          try {
            const result = (await job.handle.result()) as AgentJobResult;
            return result.status.stopReason === 'error' ? 'failed' : 'completed';
          } catch {
            return 'failed';
          }
        }),
      );
      const wallSeconds = (performance.now() - started) / 1000;
      const { answered, limited, answeredAt } = provider.counts;
      const spanSeconds = ((answeredAt.at(-1) ?? 0) - (answeredAt[0] ?? 0)) / 1000;
      const throughput = spanSeconds > 0 ? (answered - 1) / spanSeconds : Number.NaN;
      return {
        jobs: scenario.jobs,
        failedJobs: outcomes.filter((outcome) => outcome === 'failed').length,
        requests: answered + limited,
        limitedRequests: limited,
        limitedShare: round(limited / (answered + limited), 3),
        throughputPerSecond: round(throughput),
        throughputOfLimit: round(throughput / scenario.providerRate),
        wallSeconds: round(wallSeconds, 1),
      };
    });
  } finally {
    await provider.close();
    restoreVariable('DAR_OPENAI_BASE_URL', saved.url);
    restoreVariable('DAR_OPENAI_API_KEY', saved.key);
  }
}

/**
 * Rate pacing: many jobs against one provider limit, unpaced (neither a rate nor the Retry-After
 * pause: every job calls at once and waits out its own refusals), with the worker's defaults (no
 * rate, the Retry-After pause) and paced (the provider's task queue limited to its rate,
 * Retry-After pausing the provider), in the same process against the same dev server
 * (Temporal's default of 4 partitions per task queue); then paced again against a dev server
 * with one partition per task queue (`onePartition`), where the limit is exact.
 */
export async function benchRatePacing(
  environment: TestWorkflowEnvironment,
  onePartition: TestWorkflowEnvironment,
  store: JobStore,
  scenario: RatePacingCase,
) {
  // pi-ai is loaded on the first model call; load it now so it does not delay the first side.
  await import('@mariozechner/pi-ai');
  const unpaced = await measure(environment, store, scenario, UNPACED);
  const defaults = await measure(environment, store, scenario, DEFAULTS);
  const paced = await measure(environment, store, scenario, PACED);
  const pacedOnePartition = await measure(onePartition, store, scenario, PACED);
  return { scenario, unpaced, defaults, paced, pacedOnePartition };
}
