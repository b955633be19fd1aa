import type { Client } from '@temporalio/client';
import { mapWithConcurrency } from '../store/concurrency.js';
import type { JobStore } from '../store/job-store.js';
import { taskWorkflowId } from './batch-id.js';
import type { TaskProgress } from './batch-runner.js';
import type { FoundTask } from './batch-survey.js';
import { CLOSED_JOB_READS_AT_ONCE } from './closed-job-reads.js';
import { outcomeOf } from './task-outcome.js';

/**
 * Points each task at its newest attempt (from the survey) and reads how the attempts before it
 * ended into `earlier`. Those jobs are closed, so their outcomes are read at once, a few at a time.
 */
export async function readEarlierAttempts(
  client: Client,
  store: JobStore,
  batchId: string,
  tasks: readonly TaskProgress[],
  found: readonly FoundTask[],
): Promise<void> {
  await mapWithConcurrency(tasks, CLOSED_JOB_READS_AT_ONCE, async (progress, index) => {
    const attempts = found[index]?.attempts ?? 0;
    for (let attempt = 1; attempt < attempts; attempt += 1) {
      const workflowId = taskWorkflowId(batchId, progress.task.id, attempt);
      const outcome = await outcomeOf(client, store, client.workflow.getHandle(workflowId));
      progress.earlier.push({ attempt, workflowId, outcome });
    }
    progress.attempt = Math.max(1, attempts);
    progress.workflowId = taskWorkflowId(batchId, progress.task.id, progress.attempt);
  });
}

/**
 * Queues a new attempt of every task found failed (closed before this run): its attempt number
 * goes up, its workflow id is the new attempt's, and the failed attempt moves to `earlier`.
 * Returns the tasks it queued.
 */
export function retryFailedTasks(batchId: string, tasks: readonly TaskProgress[]): TaskProgress[] {
  const retried: TaskProgress[] = [];
  for (const progress of tasks) {
    const { outcome } = progress;
    if (progress.origin !== 'finished' || progress.state !== 'failed' || !outcome) continue;
    progress.earlier.push({ attempt: progress.attempt, workflowId: progress.workflowId, outcome });
    progress.attempt += 1;
    progress.workflowId = taskWorkflowId(batchId, progress.task.id, progress.attempt);
    progress.state = 'queued';
    progress.origin = 'started';
    delete progress.outcome;
    delete progress.live;
    retried.push(progress);
  }
  return retried;
}
