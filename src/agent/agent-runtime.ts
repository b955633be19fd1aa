import type { Client } from '@temporalio/client';
import type { JobStore } from '../store/job-store.js';
import type { AgentWorker } from '../worker/agent-worker-group.js';
import { DEFAULT_TASK_QUEUE } from '../worker/task-queue.js';
import type { DurableAgentOptions } from './agent-options.js';

/** What a {@link DurableAgent} needs to start jobs and read their events. */
export interface AgentRuntime {
  client: Client;
  store: JobStore;
  taskQueue: string;
  workflowType?: string;
  /** Stops the in-process worker (its running calls finish first) and closes the connections. */
  close(): Promise<void>;
}

/**
 * Connects as the options say: to the given client and store, or the way `dar` does (the
 * embedded server under the state folder, started in the background when not running, or
 * `TEMPORAL_ADDRESS`), with a worker in this process unless `worker` is false.
 */
export async function openAgentRuntime(options: DurableAgentOptions): Promise<AgentRuntime> {
  if (options.connection) {
    const { client, store, taskQueue, workflowType } = options.connection;
    return {
      client,
      store,
      taskQueue: taskQueue ?? DEFAULT_TASK_QUEUE,
      ...(workflowType === undefined ? {} : { workflowType }),
      close: async () => {},
    };
  }
  // Loaded here: a program that brings its own connection never loads the CLI's.
  const { openConnection } = await import('../cli/connection.js');
  const connection = await openConnection(options.stateDir);
  let worker: AgentWorker | undefined;
  let workerRun: Promise<void> | undefined;
  try {
    if (options.worker !== false) {
      const { createAgentWorker } = await import('../worker/agent-worker.js');
      const extra = typeof options.worker === 'object' ? options.worker : {};
      worker = await createAgentWorker({
        connection: await connection.workerConnection(),
        namespace: connection.namespace,
        store: connection.store,
        ...(extra.tools ? { tools: extra.tools } : {}),
        ...(extra.workflowsPath ? { workflowsPath: extra.workflowsPath } : {}),
      });
      workerRun = worker.run();
      // A worker that fails is reported when the agent closes; runs go on on other workers.
      workerRun.catch(() => undefined);
    }
  } catch (error) {
    await connection.close();
    throw error;
  }
  return {
    client: connection.client,
    store: connection.store,
    taskQueue: DEFAULT_TASK_QUEUE,
    async close() {
      worker?.shutdown();
      try {
        await workerRun;
      } finally {
        await connection.close();
      }
    },
  };
}
