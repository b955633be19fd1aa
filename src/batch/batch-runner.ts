import {
  WorkflowExecutionAlreadyStartedError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import { AGENT_WORKFLOW_TYPE } from '../client/job-client.js';
import type { Usage } from '../core/index.js';
import type { JobStore } from '../store/job-store.js';
import { budgetMessage, type BudgetExceeded } from '../workflows/job-budget.js';
import { startWithJobAttributes } from '../client/start-attributes.js';
import { sendingPayload } from '../client/payload-limit.js';
import { spentBatchBudget, type BatchBudget } from './batch-budget.js';
import { taskWorkflowId } from './batch-id.js';
import { needsWorker, surveyTasks } from './batch-survey.js';
import { stopJobsAtBoundary } from './batch-stop.js';
import { readLiveUsage } from './live-usage.js';
import { readEarlierAttempts, retryFailedTasks } from './task-attempts.js';
import type { BatchTask } from './task-file.js';
import { CLOSED_JOB_READS_AT_ONCE, concurrencyLimit } from './closed-job-reads.js';
import { InFlight } from './in-flight.js';
import { outcomeOf, type TaskOutcome, type TaskStatus } from './task-outcome.js';

/** `skipped`: never started, because the batch's budget was spent first. */
export type TaskState = 'queued' | 'running' | 'skipped' | TaskStatus;

/** A closed attempt at a task that a later one (`--retry-failed`) replaced. */
export interface EarlierAttempt {
  attempt: number;
  workflowId: string;
  outcome: TaskOutcome;
}

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
  /** Which attempt `workflowId` is: 1, or more after `--retry-failed`. */
  attempt: number;
  /** The attempts before this one, oldest first, each with how it ended. */
  earlier: EarlierAttempt[];
  /** Model calls and usage of the running job, as last read from the job store. */
  live?: { turns: number; usage: Usage };
  /** Why a `skipped` task was not started. */
  skipReason?: string;
}

/** The batch's tasks, all queued, each with the workflow id of its first attempt. */
export function planBatch(batchId: string, tasks: readonly BatchTask[]): TaskProgress[] {
  return tasks.map((task) => ({
    task,
    workflowId: taskWorkflowId(batchId, task.id),
    state: 'queued',
    origin: 'started',
    attempt: 1,
    earlier: [],
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
  /**
   * Limits on the whole batch. Once one is reached (checked whenever a task ends and every
   * `usageIntervalMs` while jobs run), no task starts (the queued ones are `skipped`) and every
   * running job is asked to end at its next turn boundary; the batch waits for them.
   */
  budget?: BatchBudget;
  /**
   * Start a new attempt (a new workflow id) of each task whose latest attempt had failed when
   * this run began; the failed attempt stays in `earlier`.
   */
  retryFailed?: boolean;
  /** Called once when the batch's budget is spent, with the jobs asked to stop. */
  onBudgetSpent?(exceeded: BudgetExceeded, stopping: readonly TaskProgress[]): void;
  /**
   * Read the usage of running jobs (into `live`) even without a budget: for a display that shows
   * it as it grows. With a budget it is always read.
   */
  readsLiveUsage?: boolean;
  /** How often the usage of running jobs is read from the job store (default 1000 ms). */
  usageIntervalMs?: number;
}

export interface BatchRun {
  /**
   * Why tasks were left queued or skipped: interrupted, a task of the batch was cancelled, or
   * the batch's budget was spent.
   */
  stopped?: 'interrupted' | 'cancelled' | 'budget';
  /** The limit of the batch's budget that stopped it. */
  budgetExceeded?: BudgetExceeded;
  /** How many failed tasks this run started again (`retryFailed`). */
  retried: number;
}

const DEFAULT_USAGE_INTERVAL_MS = 1000;

/**
 * Runs a batch's tasks as agent jobs, at most `concurrency` at once, and resolves when each has
 * finished (or the batch stopped). Each task's workflow id comes from the batch id, the task
 * id and the attempt, so a second run of the same batch finds the first run's work: finished
 * jobs are read back, running ones are attached to, and only tasks without a workflow are
 * started. The start itself refuses duplicates: `REJECT_DUPLICATE` never reuses the id of a
 * closed job, and `USE_EXISTING` attaches to a job that another process started a moment
 * earlier.
 */
export async function runBatch(options: BatchRunOptions): Promise<BatchRun> {
  const { client, store, batchId, signal, tasks } = options;
  const startedAt = Date.now();
  let stopped: BatchRun['stopped'];
  let budgetExceeded: BudgetExceeded | undefined;
  let retried = 0;
  let running = 0;
  const queue: TaskProgress[] = [];

  /**
   * Stops the batch once its budget is spent: stops what runs (once), and skips what is queued
   * (each time: tasks are queued after the outcomes of earlier runs were counted).
   */
  const checkBudget = () => {
    if (!options.budget) return;
    if (!budgetExceeded) {
      budgetExceeded = spentBatchBudget(options.budget, tasks, Date.now() - startedAt);
      if (!budgetExceeded) return;
      stopped ??= 'budget';
      const runningJobs = tasks.filter((progress) => progress.state === 'running');
      options.onBudgetSpent?.(budgetExceeded, runningJobs);
      void stopJobsAtBoundary(client, runningJobs, budgetExceeded);
    }
    const reason = budgetMessage(budgetExceeded);
    for (const progress of queue.splice(0)) {
      progress.state = 'skipped';
      progress.skipReason = reason;
      options.onChange(progress);
    }
  };

  const closedJobRead = concurrencyLimit(CLOSED_JOB_READS_AT_ONCE);
  /**
   * Waits for a task's job to end; `holdsSlot`: it counts toward the concurrency until then;
   * `closed`: it ended before this run, so its outcome is one read, among a few at once.
   */
  const settle = async (
    progress: TaskProgress,
    handle: WorkflowHandle,
    holdsSlot: boolean,
    closed = false,
  ): Promise<void> => {
    const read = () => outcomeOf(client, store, handle);
    const outcome = await (closed ? closedJobRead(read) : read());
    if (holdsSlot) running -= 1;
    progress.outcome = outcome;
    progress.state = outcome.status;
    delete progress.live;
    // A cancelled task means someone cancelled the batch (`dar cancel --batch`): start no more.
    if (outcome.status === 'cancelled') stopped ??= 'cancelled';
    options.onChange(progress);
    checkBudget();
  };
  const markRunning = (progress: TaskProgress) => {
    progress.state = 'running';
    options.onChange(progress);
    // Spent while this job was being started: it stops at its first boundary too.
    if (budgetExceeded) void stopJobsAtBoundary(client, [progress], budgetExceeded);
  };
  const start = async (progress: TaskProgress): Promise<void> => {
    let handle: WorkflowHandle;
    try {
      const input = { ...progress.task.input, batchId };
      handle = await sendingPayload(`The input of task ${progress.task.id}`, input, () =>
        startWithJobAttributes(
          (typedSearchAttributes) =>
            client.workflow.start(AGENT_WORKFLOW_TYPE, {
              taskQueue: options.taskQueue,
              workflowId: progress.workflowId,
              args: [input],
              workflowIdReusePolicy: 'REJECT_DUPLICATE',
              workflowIdConflictPolicy: 'USE_EXISTING',
              typedSearchAttributes,
            }),
          batchId,
        ),
      );
    } catch (error) {
      // Closed already: another `dar batch` on the same file ran it since we looked.
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      progress.origin = 'finished';
      return settle(progress, client.workflow.getHandle(progress.workflowId), true);
    }
    markRunning(progress);
    return settle(progress, handle, true);
  };

  const inFlight = new InFlight();
  const track = (work: Promise<void>) => inFlight.add(work);

  // What earlier runs left: every attempt of every task; closed jobs are read back, running ones
  // attached to.
  const found = await surveyTasks(
    client,
    batchId,
    tasks.map((progress) => progress.task.id),
  );
  await options.prepare?.(
    needsWorker(found.map((task) => task.latest)) || options.retryFailed === true,
  );
  await readEarlierAttempts(client, store, batchId, tasks, found);
  const finished: Promise<void>[] = [];
  tasks.forEach((progress, index) => {
    const job = found[index]?.latest ?? 'none';
    if (job === 'none') return;
    progress.origin = job === 'running' ? 'attached' : 'finished';
    if (job === 'running') {
      running += 1;
      markRunning(progress);
    }
    const handle = client.workflow.getHandle(progress.workflowId);
    const work = track(settle(progress, handle, job === 'running', job !== 'running'));
    if (job !== 'running') finished.push(work);
  });
  // A budget counts what earlier runs used, and a retry needs to know what failed: both wait
  // for the finished jobs' outcomes before anything starts.
  if (options.budget || options.retryFailed) await Promise.all(finished);
  if (options.retryFailed) {
    for (const progress of retryFailedTasks(batchId, tasks)) {
      retried += 1;
      options.onChange(progress);
    }
  }

  signal?.addEventListener('abort', () => inFlight.changed(), { once: true });
  queue.push(
    ...tasks.filter((progress) => progress.state === 'queued' && progress.origin === 'started'),
  );
  // The usage of running jobs, for the progress display and the budget; one read at a time.
  let reading: Promise<void> | undefined;
  const readUsage = () => {
    if (reading) return;
    const done = () => {
      reading = undefined;
    };
    // A failed read (the store, say) is tried again on the next tick.
    reading = readLiveUsage(client, store, tasks).then(checkBudget).then(done, done);
  };
  const readsUsage = options.budget !== undefined || options.readsLiveUsage === true;
  const usageTimer = readsUsage
    ? setInterval(readUsage, options.usageIntervalMs ?? DEFAULT_USAGE_INTERVAL_MS)
    : undefined;
  try {
    for (;;) {
      if (signal?.aborted) stopped = 'interrupted';
      checkBudget();
      while (stopped === undefined && queue.length > 0 && running < options.concurrency) {
        const next = queue.shift();
        if (next === undefined) break;
        // Holds its slot from here, so that the loop does not start one too many.
        running += 1;
        void track(start(next));
      }
      if (inFlight.size === 0 || signal?.aborted) break;
      await inFlight.next();
    }
  } finally {
    clearInterval(usageTimer);
    await reading;
  }
  return {
    retried,
    ...(stopped === undefined ? {} : { stopped }),
    ...(budgetExceeded ? { budgetExceeded } : {}),
  };
}
