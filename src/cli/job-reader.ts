import { WorkflowNotFoundError } from '@temporalio/client';
import { AgentJob, getJob } from '../client/job-client.js';
import { DEFAULT_TASK_QUEUE } from '../worker/task-queue.js';
import { createAgentWorker } from '../worker/agent-worker.js';
import type { CliConnection } from './connection.js';
import { UsageError } from './usage-error.js';

const QUICK_QUERY_MS = 4000;

/** The job with this id; a {@link UsageError} when there is none. */
export async function existingJob(
  connection: CliConnection,
  workflowId: string,
): Promise<AgentJob> {
  const job = getJob(connection.client, workflowId);
  try {
    await job.handle.describe();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError)
      throw new UsageError(`No job with id ${workflowId}`);
    throw error;
  }
  return job;
}

/**
 * Runs a read (a query) on a job. Queries are answered by a worker; when none answers quickly
 * (a finished job with no worker running, say), a workflow-only worker is started here for the
 * read. It runs no activities, so it cannot run a tool or a model call by accident.
 */
export async function readJob<T>(
  connection: CliConnection,
  job: AgentJob,
  read: (job: AgentJob) => Promise<T>,
): Promise<T> {
  try {
    return await connection.client.connection.withDeadline(Date.now() + QUICK_QUERY_MS, () =>
      read(job),
    );
  } catch (error) {
    if (!isDeadlineExceeded(error)) throw error;
  }
  const worker = await createAgentWorker({
    connection: await connection.workerConnection(),
    namespace: connection.namespace,
    taskQueue: DEFAULT_TASK_QUEUE,
    workflowsOnly: true,
  });
  return worker.runUntil(read(job));
}

function isDeadlineExceeded(error: unknown): boolean {
  const text = error instanceof Error ? `${error.name} ${error.message}` : String(error);
  return /deadline/i.test(text) || (error as { code?: number }).code === 4;
}
