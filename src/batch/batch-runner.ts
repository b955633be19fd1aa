import {
  WorkflowExecutionAlreadyStartedError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import { AGENT_WORKFLOW_TYPE } from '../client/job-client.js';
import type { JobStore } from '../store/job-store.js';
import { darBatchIdKey } from '../workflows/search-attributes.js';
import { taskWorkflowId } from './batch-id.js';
import { needsWorker, surveyBatch } from './batch-survey.js';
import type { BatchTask } from './task-file.js';
import { outcomeOf, type TaskOutcome, type TaskStatus } from './task-outcome.js';

export type TaskState = 'queued' | 'running' | TaskStatus;

/** A task as the batch sees it right now. */
export interface TaskProgress {
  task: BatchTask;
  workflowId: string;
  state: TaskState;
  outcome?: TaskOutcome;
  /**
   * `started`: this run started the job; `attached`: it was running when this run looked;
   * `finished`: it had closed before (its outcome is read back, nothing runs).
   */
  origin: 'started' | 'attached' | 'finished';
}

/** The batch's tasks, all queued, each with its workflow id. */
export function planBatch(batchId: string, tasks: readonly BatchTask[]): TaskProgress[] {
  return tasks.map((task) => ({
    task,
    workflowId: taskWorkflowId(batchId, task.id),
    state: 'queued',
    origin: 'started',
  }));
}

export interface BatchRunOptions {
  client: Client;
  /** The job store the batch's jobs write to (their results' text is read from it). */
  store: JobStore;
  taskQueue: string;
  batchId: string;
  /** From {@link planBatch}; updated in place as the tasks run. */
  tasks: TaskProgress[];
  /** At most this many of the batch's jobs run at once. */
  concurrency: number;
  /** Called after each change of a task's state. */
  onChange(task: TaskProgress): void;
  /**
   * Called once the batch knows what earlier runs left, before it waits on or starts any job,
   * with whether a worker is needed (a batch whose jobs all completed earlier needs none).
   */
  prepare?(needsWorker: boolean): Promise<void>;
  /** Aborting stops starting jobs and stops waiting; running jobs go on (they are durable). */
  signal?: AbortSignal;
}

export interface BatchRun {
  /** Why tasks were left queued: interrupted, or a task of the batch was cancelled. */
  stopped?: 'interrupted' | 'cancelled';
}

/**
 * Runs a batch's tasks as agent jobs, at most `concurrency` at once, and resolves when each has
 * finished (or the batch stopped). Each task's workflow id comes from the batch id and the task
 * id, so a second run of the same batch finds the first run's work: finished jobs are read back,
 * running ones are attached to, and only tasks without a workflow are started. The start itself
 * refuses duplicates: `REJECT_DUPLICATE` never reuses the id of a closed job, and
 * `USE_EXISTING` attaches to a job that another process started a moment earlier.
 */
export async function runBatch(options: BatchRunOptions): Promise<BatchRun> {
  const { client, store, batchId, signal, tasks } = options;
  let stopped: BatchRun['stopped'];
  let running = 0;

  /** Waits for a task's job to end; `holdsSlot`: it counts toward the concurrency until then. */
  const settle = async (
    progress: TaskProgress,
    handle: WorkflowHandle,
    holdsSlot: boolean,
  ): Promise<void> => {
    const outcome = await outcomeOf(client, store, handle);
    if (holdsSlot) running -= 1;
    progress.outcome = outcome;
    progress.state = outcome.status;
    // A cancelled task means someone cancelled the batch (`dar cancel --batch`): start no more.
    if (outcome.status === 'cancelled') stopped ??= 'cancelled';
    options.onChange(progress);
  };
  const markRunning = (progress: TaskProgress) => {
    progress.state = 'running';
    options.onChange(progress);
  };
  const start = async (progress: TaskProgress): Promise<void> => {
    let handle: WorkflowHandle;
    try {
      handle = await client.workflow.start(AGENT_WORKFLOW_TYPE, {
        taskQueue: options.taskQueue,
        workflowId: progress.workflowId,
        args: [{ ...progress.task.input, batchId }],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        workflowIdConflictPolicy: 'USE_EXISTING',
        typedSearchAttributes: [{ key: darBatchIdKey, value: batchId }],
      });
    } catch (error) {
      // Closed already: another `dar batch` on the same file ran it since we looked.
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      progress.origin = 'finished';
      return settle(progress, client.workflow.getHandle(progress.workflowId), true);
    }
    markRunning(progress);
    return settle(progress, handle, true);
  };

  const inFlight = new Set<Promise<void>>();
  const track = (work: Promise<void>) => {
    inFlight.add(work);
    void work.then(
      () => inFlight.delete(work),
      () => undefined,
    );
  };

  // What earlier runs left: closed jobs are read back, running ones attached to.
  const found = await surveyBatch(
    client,
    tasks.map((progress) => progress.workflowId),
  );
  await options.prepare?.(needsWorker(found));
  tasks.forEach((progress, index) => {
    const job = found[index] ?? 'none';
    if (job === 'none') return;
    progress.origin = job === 'running' ? 'attached' : 'finished';
    if (job === 'running') {
      running += 1;
      markRunning(progress);
    }
    track(settle(progress, client.workflow.getHandle(progress.workflowId), job === 'running'));
  });

  const aborted = new Promise<void>((resolve) => {
    if (signal?.aborted) resolve();
    signal?.addEventListener('abort', () => resolve(), { once: true });
  });
  const queue = tasks.filter(
    (progress) => progress.state === 'queued' && progress.origin === 'started',
  );
  for (;;) {
    if (signal?.aborted) stopped = 'interrupted';
    while (stopped === undefined && queue.length > 0 && running < options.concurrency) {
      const next = queue.shift();
      if (next === undefined) break;
      // Holds its slot from here, so that the loop does not start one too many.
      running += 1;
      track(start(next));
    }
    if (inFlight.size === 0 || signal?.aborted) break;
    await Promise.race([...inFlight, aborted]);
  }
  return stopped === undefined ? {} : { stopped };
}
