import type { AgentWorker } from '../worker/agent-worker-group.js';
import { DEFAULT_TASK_QUEUE } from '../worker/task-queue.js';
import type { CliConnection } from './connection.js';
import { readerIdentity } from './worker-presence.js';

/** How long a standby worker stays up after its last use. */
const IDLE_MS = 60_000;

/** A workflow-only worker on the default task queue: it answers queries and updates, runs no activity. */
export async function createWorkflowOnlyWorker(connection: CliConnection): Promise<AgentWorker> {
  const { createAgentWorker } = await import('../worker/agent-worker.js');
  return createAgentWorker({
    connection: await connection.workerConnection(),
    namespace: connection.namespace,
    taskQueue: DEFAULT_TASK_QUEUE,
    workflowsOnly: true,
    store: connection.store,
    workerOptions: { identity: readerIdentity() },
  });
}

/**
 * A workflow-only worker a long-running command (`dar ui`) keeps while it is needed: started by
 * the first ask that found no worker, shut down after a minute without use, so that a page
 * asking every few seconds does not start a worker for each ask.
 */
export class StandbyWorker {
  private running: Promise<{ worker: AgentWorker; done: Promise<void> }> | undefined;
  private lastUse = 0;
  /** Asks under way: the worker is not stopped under them. */
  private asking = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly connection: CliConnection,
    private readonly idleMs = IDLE_MS,
  ) {}

  /** Runs `ask` while the standby worker runs (starting it first when needed). */
  async run<T>(ask: () => Promise<T>): Promise<T> {
    if (this.closed) throw new Error('The standby worker was closed');
    this.lastUse = Date.now();
    this.asking += 1;
    try {
      await this.start();
      return await ask();
    } finally {
      this.asking -= 1;
      this.lastUse = Date.now();
    }
  }

  /** Stops the worker (if it runs) and waits for it. */
  async close(): Promise<void> {
    this.closed = true;
    await this.stop();
  }

  private start(): Promise<unknown> {
    if (!this.running) {
      const starting = createWorkflowOnlyWorker(this.connection).then((worker) => {
        // Failures of the worker's run are seen by the next ask (it starts a new one).
        const done = worker.run().catch(() => undefined);
        void done.then(() => {
          if (this.running === starting) this.running = undefined;
        });
        this.watchIdle();
        return { worker, done };
      });
      this.running = starting;
      starting.catch(() => {
        if (this.running === starting) this.running = undefined;
      });
    }
    return this.running;
  }

  private watchIdle(): void {
    clearInterval(this.idleTimer);
    this.idleTimer = setInterval(
      () => {
        if (this.asking === 0 && Date.now() - this.lastUse >= this.idleMs) void this.stop();
      },
      Math.min(this.idleMs, 10_000),
    );
    this.idleTimer.unref();
  }

  private async stop(): Promise<void> {
    clearInterval(this.idleTimer);
    this.idleTimer = undefined;
    const running = this.running;
    this.running = undefined;
    if (!running) return;
    const started = await running.catch(() => undefined);
    if (!started) return;
    started.worker.shutdown();
    await started.done;
  }
}
