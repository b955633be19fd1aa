import type { WorkerOptions } from '@temporalio/worker';

/** Tool calls one turn may run at once, for sizing (a turn's calls run in parallel by default). */
const TOOL_CALLS_PER_TURN = 8;

/**
 * Worker settings for `dar batch` running `concurrency` jobs in-process: a job needs at most one
 * workflow task at a time, and one model call or one turn's tool calls. The SDK's defaults
 * (40 workflow tasks, 100 activities) already fit small batches; larger ones get more.
 */
export function batchWorkerOptions(concurrency: number): Partial<WorkerOptions> {
  return {
    maxConcurrentWorkflowTaskExecutions: Math.max(40, concurrency),
    maxConcurrentActivityTaskExecutions: Math.max(100, concurrency * TOOL_CALLS_PER_TURN),
  };
}
