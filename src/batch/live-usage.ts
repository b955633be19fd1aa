import type { Client } from '@temporalio/client';
import { AgentJob } from '../client/job-client.js';
import type { JobStore } from '../store/job-store.js';
import type { TaskProgress } from './batch-runner.js';

/** Status reads in flight at once. */
const READ_PARALLELISM = 16;

/**
 * Reads the turns and usage of each running task's job from the job store (the status it last
 * wrote, no worker asked) into `live`. Best effort: a job whose status cannot be read keeps the
 * last value read.
 */
export async function readLiveUsage(
  client: Client,
  store: JobStore,
  tasks: readonly TaskProgress[],
): Promise<void> {
  const runningTasks = tasks.filter((progress) => progress.state === 'running');
  for (let index = 0; index < runningTasks.length; index += READ_PARALLELISM) {
    const slice = runningTasks.slice(index, index + READ_PARALLELISM);
    await Promise.all(
      slice.map(async (progress) => {
        const job = new AgentJob(client.workflow.getHandle(progress.workflowId), store);
        const status = await job.storedStatus().catch(() => undefined);
        // Only while it still runs: a settled task's outcome has the final figures.
        if (status && progress.state === 'running') {
          progress.live = { turns: status.turns, usage: status.usage };
        }
      }),
    );
  }
}
