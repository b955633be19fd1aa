import type { Client } from '@temporalio/client';
import { batchBudgetSignal } from '../workflows/definitions.js';
import type { BudgetExceeded } from '../workflows/job-budget.js';
import type { TaskProgress } from './batch-runner.js';

/**
 * Asks running jobs to end at their next turn boundary because the batch's budget is spent
 * (never during a tool body: a model call or tool body under way finishes first). Best effort:
 * a job that closed meanwhile has nothing to stop, and its outcome is read as usual.
 */
export async function stopJobsAtBoundary(
  client: Client,
  tasks: readonly TaskProgress[],
  exceeded: BudgetExceeded,
): Promise<void> {
  await Promise.all(
    tasks.map((progress) =>
      client.workflow
        .getHandle(progress.workflowId)
        .signal(batchBudgetSignal, exceeded)
        .catch(() => undefined),
    ),
  );
}
