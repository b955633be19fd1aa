import type { Worker } from '@temporalio/worker';

/**
 * The Temporal workers of one agent worker, run and stopped together: the one of the jobs' task
 * queue (workflows, tools) and one per provider's model task queue. Used like a single SDK
 * `Worker`: `run()`, `shutdown()`, `runUntil()`.
 */
export class AgentWorker {
  /** The workers, the jobs' task queue's first. */
  readonly workers: readonly Worker[];

  constructor(main: Worker, others: readonly Worker[] = []) {
    this.workers = [main, ...others];
  }

  /** The worker of the jobs' task queue (workflow tasks and tool bodies). */
  get main(): Worker {
    return this.workers[0] as Worker;
  }

  /** Each worker's task queue, the jobs' first. */
  get taskQueues(): string[] {
    return this.workers.map((worker) => worker.options.taskQueue);
  }

  /**
   * Runs every worker until {@link shutdown} (running calls finish first). When one of them
   * fails, the others are shut down and the first failure is thrown once all have stopped.
   */
  async run(): Promise<void> {
    const outcomes = await Promise.allSettled(
      this.workers.map(async (worker) => {
        try {
          await worker.run();
        } catch (error) {
          this.shutdown();
          throw error;
        }
      }),
    );
    const failed = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** Starts a graceful shutdown of every worker still running. */
  shutdown(): void {
    for (const worker of this.workers) {
      if (worker.getState() === 'RUNNING') worker.shutdown();
    }
  }

  /**
   * Runs the workers while `work` runs, then shuts them down and returns its result (like the
   * SDK's `Worker.runUntil`). A worker that fails (or stops) first ends it at once with that
   * failure, without waiting for `work`.
   */
  async runUntil<R>(work: Promise<R> | (() => Promise<R>)): Promise<R> {
    const running = this.run();
    // (A function that throws at once rejects `done`: the workers still get shut down.)
    const done = Promise.resolve().then(() => (typeof work === 'function' ? work() : work));
    const stopped = running.then(() => {
      throw new Error('The agent worker stopped before the work it ran for was done');
    });
    // Whichever loses the race may still reject later: that is expected, not unhandled.
    done.catch(() => undefined);
    stopped.catch(() => undefined);
    let result: R;
    try {
      result = await Promise.race([done, stopped]);
    } catch (error) {
      this.shutdown();
      await running.catch(() => undefined);
      throw error;
    }
    this.shutdown();
    await running;
    return result;
  }
}
