import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { taskWorkflowId } from './batch-id.js';

/**
 * What an earlier run of the batch left for a task: no workflow, a running one, one that
 * completed, or one that closed otherwise (failed, cancelled, terminated, timed out).
 */
export type FoundJob = 'none' | 'running' | 'completed' | 'closed';

/** Describe calls in flight while the batch looks for its tasks' workflows. */
const SURVEY_PARALLELISM = 16;

async function find(client: Client, workflowId: string): Promise<FoundJob> {
  try {
    const { status } = await client.workflow.getHandle(workflowId).describe();
    if (status.name === 'RUNNING') return 'running';
    return status.name === 'COMPLETED' ? 'completed' : 'closed';
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return 'none';
    throw error;
  }
}

/**
 * Looks up each task's workflow (the latest run of its id). Describe reads the workflow's own
 * record, not the list filter's eventually consistent index, so a job started a moment ago by a
 * killed `dar batch` is found.
 */
export async function surveyBatch(client: Client, workflowIds: string[]): Promise<FoundJob[]> {
  const found: FoundJob[] = [];
  for (let index = 0; index < workflowIds.length; index += SURVEY_PARALLELISM) {
    const slice = workflowIds.slice(index, index + SURVEY_PARALLELISM);
    found.push(...(await Promise.all(slice.map((id) => find(client, id)))));
  }
  return found;
}

/** What earlier runs left for one task: how many attempts have a workflow, and the last one's state. */
export interface FoundTask {
  /** Attempts with a workflow (0: none was started). */
  attempts: number;
  /** The newest attempt's workflow; `none` when there is no attempt. */
  latest: FoundJob;
}

/**
 * Looks up every attempt of each task (`--retry-failed` starts attempt 2, 3, ...): attempt n + 1
 * is looked for only when attempt n has closed, so a batch never retried costs one lookup more
 * per finished task.
 */
export async function surveyTasks(
  client: Client,
  batchId: string,
  taskIds: readonly string[],
): Promise<FoundTask[]> {
  const found: FoundTask[] = taskIds.map(() => ({ attempts: 0, latest: 'none' }));
  let open = taskIds.map((_, index) => index);
  while (open.length > 0) {
    const ids = open.map((index) =>
      taskWorkflowId(batchId, taskIds[index] ?? '', (found[index]?.attempts ?? 0) + 1),
    );
    const jobs = await surveyBatch(client, ids);
    const next: number[] = [];
    open.forEach((index, position) => {
      const job = jobs[position] ?? 'none';
      const task = found[index];
      if (job === 'none' || task === undefined) return;
      task.attempts += 1;
      task.latest = job;
      if (job !== 'running') next.push(index);
    });
    open = next;
  }
  return found;
}

/**
 * Whether this run needs a worker: to run jobs, and to answer the status query of a job that
 * closed without a result (its usage).
 */
export function needsWorker(found: readonly FoundJob[]): boolean {
  return found.some((job) => job !== 'completed');
}
