import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { JobDirectory, JobStanding, RunningWorkflow } from './job-directory.js';

interface ProtoTimestamp {
  seconds?: { toString(): string } | number | null;
  nanos?: number | null;
}

function timestampMs(timestamp: ProtoTimestamp | null | undefined): number | undefined {
  if (timestamp?.seconds === undefined || timestamp.seconds === null) return undefined;
  return Number(timestamp.seconds.toString()) * 1000 + Math.floor((timestamp.nanos ?? 0) / 1e6);
}

/** The jobs of the client's namespace as Temporal knows them (see `JobDirectory`). */
export function temporalJobDirectory(client: Client): JobDirectory {
  return {
    async standing(jobId: string): Promise<JobStanding> {
      try {
        const description = await client.workflow.getHandle(jobId).describe();
        if (description.status.name === 'RUNNING') return { state: 'running' };
        const closedAt = description.closeTime ?? description.startTime;
        return { state: 'closed', closedAtMs: closedAt.getTime() };
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return { state: 'unknown' };
        throw error;
      }
    },

    async running(): Promise<RunningWorkflow[]> {
      const found: RunningWorkflow[] = [];
      for await (const execution of client.workflow.list({
        query: 'ExecutionStatus = "Running"',
      })) {
        const handle = client.workflow.getHandle(execution.workflowId, execution.runId);
        let chainStartedAtMs: number | undefined;
        try {
          const description = await handle.describe();
          chainStartedAtMs = timestampMs(description.raw.workflowExtendedInfo?.originalStartTime);
        } catch (error) {
          // Closed and gone between the list and the describe: nothing of it runs.
          if (error instanceof WorkflowNotFoundError) continue;
          throw error;
        }
        found.push({
          workflowId: execution.workflowId,
          runId: execution.runId,
          runStartedAtMs: execution.startTime.getTime(),
          chainStartedAtMs,
        });
      }
      return found;
    },
  };
}
