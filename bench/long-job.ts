import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { FileJobStore } from '../src/store/file/file-job-store.js';
import { measureGrowingJob } from './history-growth.js';

/**
 * A long job on the embedded dev server: `turns` tool turns, each adding a message of about
 * `textBytes` (a few KB), so the transcript reaches megabytes. Reports its wall time, its
 * history over every run and what it stored.
 */
export function benchLongJob(
  environment: TestWorkflowEnvironment,
  taskQueue: string,
  store: FileJobStore,
  turns: number,
  textBytes: number,
) {
  return measureGrowingJob(environment, taskQueue, store, turns, textBytes);
}
