import { WorkflowNotFoundError, type WorkflowExecutionDescription } from '@temporalio/client';
import { AgentJob, getJob } from '../client/job-client.js';
import type { CliConnection } from './connection.js';
import { createWorkflowOnlyWorker, type StandbyWorker } from './standby-worker.js';
import { noSuchJobMessage } from './no-such-job.js';
import { UsageError } from './usage-error.js';
import { workerPollsLately } from './worker-presence.js';

/** How long a query waits for a running worker's answer before this command starts its own. */
const QUICK_QUERY_MS = 4000;
/** ... when no worker polls the job's queue (one may have just started). */
const NO_WORKER_MS = 500;

/** The task queue of each job `describedJob` described, so that a read does not ask again. */
const describedQueues = new WeakMap<AgentJob, string>();

/**
 * The job with this id while it runs; a {@link UsageError} when there is none, or when it has
 * ended: `refusal` says what cannot be done then (`nothing to cancel`), after how it ended.
 */
export async function runningJob(
  connection: CliConnection,
  workflowId: string,
  refusal: string,
): Promise<AgentJob> {
  const { job, description } = await describedJob(connection, workflowId);
  const status = description.status.name;
  if (status !== 'RUNNING') {
    throw new UsageError(`Job ${workflowId} has ended (${status}): ${refusal}`);
  }
  return job;
}

/**
 * The job with this id and what Temporal said of it (status, close time, task queue); a
 * {@link UsageError} when there is none.
 */
export async function describedJob(
  connection: CliConnection,
  workflowId: string,
): Promise<{ job: AgentJob; description: WorkflowExecutionDescription }> {
  const job = getJob(connection.client, workflowId, connection.store);
  try {
    const description = await job.handle.describe();
    describedQueues.set(job, description.taskQueue);
    return { job, description };
  } catch (error) {
    if (error instanceof WorkflowNotFoundError)
      throw new UsageError(noSuchJobMessage(connection.settings, connection.namespace, workflowId));
    throw error;
  }
}

/**
 * Runs a read (a query) on a job. Queries are answered by a worker; when none answers quickly
 * (a finished job with no worker running, say), a workflow-only worker is started here for the
 * read. It runs no activities, so it cannot run a tool or a model call by accident. A command
 * that asks again and again (`dar ui`) passes a `standby` worker, kept between reads.
 */
export async function readJob<T>(
  connection: CliConnection,
  job: AgentJob,
  read: (job: AgentJob) => Promise<T>,
  standby?: StandbyWorker,
): Promise<T> {
  // Reads of the store need no worker: the read is always tried first. Its queries wait for
  // a running worker only when one polls the job's queue.
  const waitMs = (await runningWorkerMayAnswer(connection, job)) ? QUICK_QUERY_MS : NO_WORKER_MS;
  const deadline = Date.now() + waitMs;
  try {
    return await connection.client.connection.withDeadline(deadline, () => read(job));
  } catch (error) {
    // (A little slack: the call's deadline timer may fire a moment before ours reads it.)
    if (!noWorkerAnswered(error, Date.now() >= deadline - Math.min(250, waitMs / 2))) throw error;
  }
  if (standby) return standby.run(() => read(job));
  const worker = await createWorkflowOnlyWorker(connection);
  return worker.runUntil(read(job));
}

/**
 * Whether a worker polls the job's task queue: when none has lately, a query goes to a worker
 * of this command's own after `NO_WORKER_MS` rather than `QUICK_QUERY_MS` (an answer that cannot
 * come). A job that cannot be described is read as before (the read reports what is wrong).
 */
async function runningWorkerMayAnswer(connection: CliConnection, job: AgentJob): Promise<boolean> {
  let taskQueue = describedQueues.get(job);
  if (taskQueue === undefined) {
    try {
      taskQueue = (await job.handle.describe()).taskQueue;
    } catch {
      return true;
    }
  }
  return workerPollsLately(connection.client, connection.namespace, taskQueue);
}

/**
 * Whether a query failed because no worker answered. The client wraps the gRPC error in a
 * `ServiceError` (its `cause`): DEADLINE_EXCEEDED (4), or CANCELLED (1) when the deadline's
 * timer won the race, or FAILED_PRECONDITION (9) when the server saw no poller at all.
 */
function noWorkerAnswered(error: unknown, deadlinePassed: boolean): boolean {
  let current: unknown = error;
  while (current instanceof Error) {
    const text = `${current.name} ${current.message}`;
    const code = (current as Error & { code?: unknown }).code;
    if (/deadline/i.test(text) || code === 4) return true;
    if (code === 1 && deadlinePassed) return true;
    if (code === 9 && /no poller/i.test(text)) return true;
    current = current.cause;
  }
  return false;
}
