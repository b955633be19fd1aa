import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { readStoredStatus } from './stored-job-reads.js';
import type { JobStore } from '../store/job-store.js';
import { phaseClause } from './job-list-filter.js';
import {
  DAR_PHASES,
  darBatchIdKey,
  darPhaseKey,
  darTurnsKey,
} from '../workflows/search-attributes.js';

/** One line of the console's jobs list. */
export interface JobRow {
  id: string;
  /** Temporal's status of the workflow: Running, Completed, Failed, Canceled, Terminated ... */
  workflowStatus: string;
  /** The job's phase as last stored (else as published to Temporal); undefined before any. */
  phase: string | undefined;
  turns: number | undefined;
  /** Cost in US dollars so far, as the job last stored it. */
  costUsd: number | undefined;
  batch: string | undefined;
  startedAt: string;
  closedAt: string | undefined;
  /** Milliseconds since the job started, by the server's clock. */
  ageMs: number;
}

/** How many jobs of the filter are in each phase, and in all. */
export interface PhaseCounts {
  all: number;
  byPhase: Record<string, number>;
}

async function rowOf(store: JobStore, execution: WorkflowExecutionInfo): Promise<JobRow> {
  const stored = await readStoredStatus(store, execution.workflowId);
  const attributes = execution.typedSearchAttributes;
  return {
    id: execution.workflowId,
    workflowStatus: execution.status.name,
    phase: stored?.phase ?? attributes.get(darPhaseKey),
    turns: stored?.turns ?? attributes.get(darTurnsKey),
    costUsd: stored?.usage.cost.total,
    batch: attributes.get(darBatchIdKey),
    startedAt: execution.startTime.toISOString(),
    closedAt: execution.closeTime?.toISOString(),
    ageMs: Math.max(0, Date.now() - execution.startTime.getTime()),
  };
}

/**
 * The newest `limit` jobs that match Temporal's list filter `query`, each with what the job
 * last stored (phase, turns, cost). With `exactPhase`, only jobs whose stored phase is that one
 * count (`model` or `tools`, which visibility publishes as `running`); the list is read on
 * until `limit` of them are found.
 */
export async function listJobRows(
  client: Client,
  store: JobStore,
  query: string,
  limit: number,
  exactPhase?: string,
): Promise<JobRow[]> {
  if (exactPhase !== undefined) {
    const rows: JobRow[] = [];
    for await (const execution of client.workflow.list({ query, pageSize: limit })) {
      if (rows.length >= limit) break;
      const row = await rowOf(store, execution);
      if (row.phase === exactPhase) rows.push(row);
    }
    return rows;
  }
  const executions: WorkflowExecutionInfo[] = [];
  for await (const execution of client.workflow.list({ query, pageSize: limit })) {
    if (executions.length >= limit) break;
    executions.push(execution);
  }
  return Promise.all(executions.map((execution) => rowOf(store, execution)));
}

/**
 * The number of jobs of `query` in each phase `DarPhase` publishes (Temporal's counts, which
 * may lag a moment; `running` counts jobs of earlier releases in `model` or `tools` too).
 */
export async function countJobsByPhase(client: Client, query: string): Promise<PhaseCounts> {
  const [all, ...perPhase] = await Promise.all([
    client.workflow.count(query),
    ...DAR_PHASES.map((phase) => client.workflow.count(`${query} AND ${phaseClause(phase)}`)),
  ]);
  const byPhase: Record<string, number> = {};
  for (const [index, phase] of DAR_PHASES.entries()) byPhase[phase] = perPhase[index]?.count ?? 0;
  return { all: all?.count ?? 0, byPhase };
}
