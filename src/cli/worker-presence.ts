import type { Client } from '@temporalio/client';
import { hostname } from 'node:os';
// The package is CommonJS: its namespace comes as the default export under Node's ESM loader.
import proto from '@temporalio/proto';

/**
 * The identity of the workflow-only workers `dar` commands start for a read: such a worker
 * ends with its command, so a poll of one does not mean a worker runs.
 */
export const READER_IDENTITY_PREFIX = 'dar-reader:';

export function readerIdentity(): string {
  return `${READER_IDENTITY_PREFIX}${process.pid}@${hostname()}`;
}

/**
 * How recently a worker must have polled to count as running. A live worker always has a
 * long poll open, and a long poll lasts about a minute, so its last poll is never much older;
 * a killed worker's stays listed until it ages past this.
 */
const POLLED_WITHIN_MS = 75_000;

/**
 * Whether a worker polled `taskQueue` for workflow tasks lately, that is whether a query or an
 * update sent to a job on that queue can be answered by a running worker (the readers of
 * earlier commands do not count). False lets a read
 * start its own worker at once instead of waiting for one that is not there. When the server
 * cannot tell (an older server, a missing permission), the answer is true: the read then waits
 * for a running worker first, as it always did.
 */
export async function workerPollsLately(
  client: Client,
  namespace: string,
  taskQueue: string,
  now = Date.now(),
): Promise<boolean> {
  try {
    const described = await client.workflowService.describeTaskQueue({
      namespace,
      taskQueue: { name: taskQueue },
      taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    });
    return (described.pollers ?? []).some((poller) => {
      if (poller.identity?.startsWith(READER_IDENTITY_PREFIX)) return false;
      const seconds = poller.lastAccessTime?.seconds;
      if (seconds === undefined || seconds === null) return true;
      return Number(seconds) * 1000 >= now - POLLED_WITHIN_MS;
    });
  } catch {
    return true;
  }
}
