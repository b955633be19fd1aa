import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { MODEL_QUEUE_PROVIDERS, providerTaskQueue } from '../workflows/model-task-queue.js';
import type { ModelPacing } from './model-pacing.js';

// Heartbeats carry cancellation to running activities; by default the SDK sends them at most
// every 80% of the heartbeat timeout, so `dar cancel` could take half a minute.
export const HEARTBEAT_THROTTLE = '1 second';

export interface ModelWorkersOptions {
  connection: NativeConnection;
  namespace: string;
  /** The jobs' task queue; each provider's model calls come on `<taskQueue>-model-<provider>`. */
  taskQueue: string;
  /** The activities to register (the same as on the jobs' task queue). */
  activities: NonNullable<WorkerOptions['activities']>;
  pacing: ModelPacing;
  /** Model calls run at once per provider when its pacing sets no concurrency (SDK default). */
  defaultConcurrency?: number | undefined;
  /** Settings every worker of the agent worker shares (data converter, interceptors). */
  shared?: Partial<WorkerOptions>;
}

/**
 * A worker for each built-in provider's model task queue, with that provider's pacing: the
 * server starts at most `ratePerSecond` calls a second on the queue (for all its workers), this
 * worker runs at most `concurrency` at once. When one cannot be created, the ones already
 * created are closed and the error is thrown.
 */
export async function createModelWorkers(options: ModelWorkersOptions): Promise<Worker[]> {
  const workers: Worker[] = [];
  try {
    for (const provider of MODEL_QUEUE_PROVIDERS) {
      const { ratePerSecond, concurrency = options.defaultConcurrency } =
        options.pacing[provider] ?? {};
      workers.push(
        await Worker.create({
          connection: options.connection,
          namespace: options.namespace,
          taskQueue: providerTaskQueue(options.taskQueue, provider),
          activities: options.activities,
          ...options.shared,
          maxHeartbeatThrottleInterval: HEARTBEAT_THROTTLE,
          ...(ratePerSecond === undefined
            ? {}
            : { maxTaskQueueActivitiesPerSecond: ratePerSecond }),
          ...(concurrency === undefined
            ? {}
            : { maxConcurrentActivityTaskExecutions: concurrency }),
        }),
      );
    }
  } catch (error) {
    await closeUnstarted(workers);
    throw error;
  }
  return workers;
}

/** Releases workers that were created but never run (a run that ends at once). */
export async function closeUnstarted(workers: readonly Worker[]): Promise<void> {
  await Promise.allSettled(workers.map((worker) => worker.runUntil(Promise.resolve())));
}
