import type { CliConnection } from './connection.js';
import { workerPollsLately } from './worker-presence.js';

/**
 * Says on stderr that no worker has polled `taskQueue` lately (see `workerPollsLately`), when
 * none has: what was asked of a job there (started, cancelled) happens only once a worker runs.
 * `waiting` says what waits for `dar worker`, as the end of a sentence: `carries job ID on`.
 */
export async function noteWhenNoWorker(
  connection: CliConnection,
  taskQueue: string,
  waiting: string,
): Promise<void> {
  if (await workerPollsLately(connection.client, connection.namespace, taskQueue)) return;
  process.stderr.write(`No worker takes jobs from task queue ${taskQueue} now: ${waiting}.\n`);
}
