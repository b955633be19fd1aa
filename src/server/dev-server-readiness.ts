import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { acceptsConnections } from './ports.js';

export interface ReadinessOptions {
  host: string;
  port: number;
  namespace: string;
  timeoutMs: number;
  /** Checked between attempts: a reason to stop waiting (the process died), or undefined. */
  abandonReason: () => string | undefined;
}

/**
 * Waits until the frontend at `host:port` answers gRPC and knows `namespace` (an open port alone
 * is not enough: the frontend accepts connections before its namespaces are loaded). Throws with
 * the last error when `timeoutMs` passes or `abandonReason` gives one.
 */
export async function waitForFrontend(options: ReadinessOptions): Promise<void> {
  const { host, port, namespace, timeoutMs, abandonReason } = options;
  const deadline = Date.now() + timeoutMs;
  let lastProblem = 'the port never accepted a connection';
  for (;;) {
    const reason = abandonReason();
    if (reason) throw new Error(reason);
    if (Date.now() >= deadline) {
      throw new Error(`not ready after ${Math.round(timeoutMs / 1000)} s (${lastProblem})`);
    }
    if (await acceptsConnections(port, host, 500)) {
      try {
        await describeNamespace(`${host}:${port}`, namespace);
        return;
      } catch (error) {
        lastProblem = error instanceof Error ? error.message : String(error);
      }
    }
    await sleep(100);
  }
}

async function describeNamespace(address: string, namespace: string): Promise<void> {
  const connection = await Connection.connect({ address, connectTimeout: 2_000 });
  try {
    await connection.workflowService.describeNamespace({ namespace });
  } finally {
    await connection.close();
  }
}
