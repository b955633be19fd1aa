import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { isObjectRef } from '../store/references.js';
import { heldObjectsQuery } from '../workflows/definitions.js';
import { HELD_REFERENCES_LIMIT, type HeldObjects } from '../workflows/held-objects.js';
import type { JobDirectory, JobStanding, RunningWorkflow } from './job-directory.js';

/**
 * How long a running workflow has to say what it holds: a worker answers a query in
 * milliseconds; one that does not answer by then (none runs it) holds the cutoff back.
 */
export const HELD_OBJECTS_TIMEOUT_MS = 5000;

function isHeldObjects(answer: unknown): answer is HeldObjects {
  if (typeof answer !== 'object' || answer === null) return false;
  const { settled, refs } = answer as Partial<HeldObjects>;
  return (
    typeof settled === 'boolean' &&
    Array.isArray(refs) &&
    refs.length <= HELD_REFERENCES_LIMIT &&
    refs.every(isObjectRef)
  );
}

interface ProtoTimestamp {
  seconds?: { toString(): string } | number | null;
  nanos?: number | null;
}

function timestampMs(timestamp: ProtoTimestamp | null | undefined): number | undefined {
  if (timestamp?.seconds === undefined || timestamp.seconds === null) return undefined;
  return Number(timestamp.seconds.toString()) * 1000 + Math.floor((timestamp.nanos ?? 0) / 1e6);
}

/**
 * The jobs of the client's namespace as Temporal knows them (see `JobDirectory`). A running
 * workflow is asked what it holds through a query, answered within `heldObjectsTimeoutMs`.
 */
export function temporalJobDirectory(
  client: Client,
  heldObjectsTimeoutMs = HELD_OBJECTS_TIMEOUT_MS,
): JobDirectory {
  return {
    async heldObjects(workflow: RunningWorkflow): Promise<HeldObjects | undefined> {
      // The current run of the chain: the one that holds the job's state now.
      const handle = client.workflow.getHandle(workflow.workflowId);
      try {
        const answer: unknown = await client.connection.withDeadline(
          Date.now() + heldObjectsTimeoutMs,
          () => handle.query(heldObjectsQuery),
        );
        return isHeldObjects(answer) ? answer : undefined;
      } catch {
        // No worker answered in time, no such query (another workflow type, an earlier
        // release), or the workflow closed: it holds the cutoff back, as before.
        return undefined;
      }
    },

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
