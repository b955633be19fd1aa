import type { WorkflowExecutionDescription } from '@temporalio/client';
import type { StoredJobStatus } from '../activities/job-status-record.js';
import { budgetStopLine, budgetUsageLine } from '../cli/budget-format.js';
import { darBatchIdKey } from '../workflows/search-attributes.js';

/** What the console's job page shows of a job beside its events. */
export interface JobSummary {
  id: string;
  /** Temporal's status of the workflow: Running, Completed, Failed, Canceled, Terminated ... */
  workflowStatus: string;
  /** Whether the workflow still runs (so that it can be cancelled). */
  running: boolean;
  startedAt: string;
  closedAt: string | undefined;
  batch: string | undefined;
  /**
   * The job ended and the job store holds nothing of it: its data was deleted (`dar prune`).
   * Its `status` is then undefined and its page has no events.
   */
  dataDeleted: boolean;
  /** What the job last stored; undefined before its first write. */
  status:
    | {
        phase: string;
        turns: number;
        modelCalls: number;
        lastSeq: number;
        cancelled: boolean;
        tokens: { input: number; output: number; total: number };
        costUsd: number;
        stopReason: string | undefined;
        errorMessage: string | undefined;
        budget: string | undefined;
        budgetStop: string | undefined;
        continuedAsNew: number;
        compactions: number;
      }
    | undefined;
}

/** The job's summary from Temporal's description and the status the job stored. */
export function jobSummary(
  description: WorkflowExecutionDescription,
  stored: StoredJobStatus | undefined,
  dataDeleted = false,
): JobSummary {
  const end = description.closeTime?.getTime() ?? Date.now();
  return {
    id: description.workflowId,
    workflowStatus: description.status.name,
    running: description.status.name === 'RUNNING',
    startedAt: description.startTime.toISOString(),
    closedAt: description.closeTime?.toISOString(),
    batch: description.typedSearchAttributes.get(darBatchIdKey),
    dataDeleted,
    status: stored && {
      phase: stored.phase,
      turns: stored.turns,
      modelCalls: stored.modelCalls,
      lastSeq: stored.lastSeq,
      cancelled: stored.cancelled,
      tokens: {
        input: stored.usage.input,
        output: stored.usage.output,
        total: stored.usage.totalTokens,
      },
      costUsd: stored.usage.cost.total,
      stopReason: stored.stopReason,
      errorMessage: stored.errorMessage,
      budget: budgetUsageLine(stored, end - (stored.startedAt ?? end)),
      budgetStop: budgetStopLine(stored),
      continuedAsNew: stored.continuedAsNew,
      compactions: stored.compactions ?? 0,
    },
  };
}
