import { checkBatchId } from '../batch/batch-id.js';
import { AGENT_WORKFLOW_TYPE } from './job-client.js';
import {
  DAR_PHASES,
  RUNNING_PHASES_OF_EARLIER_RELEASES,
  darBatchIdKey,
  darPhaseKey,
} from '../workflows/search-attributes.js';
import { UsageError } from '../job-input/usage-error.js';

export interface JobFilter {
  batch?: string | undefined;
  phase?: string | undefined;
  /** Only jobs still running (`dar cancel --batch`). */
  runningOnly?: boolean;
}

/**
 * The phases a filter may name: what `DarPhase` holds, and `model` and `tools`, which are
 * `running` there and told apart by the job store's status (`exactPhaseOf`).
 */
export const FILTER_PHASES: readonly string[] = [
  ...DAR_PHASES,
  ...RUNNING_PHASES_OF_EARLIER_RELEASES,
];

const RUNNING_VALUES: readonly string[] = ['running', ...RUNNING_PHASES_OF_EARLIER_RELEASES];

/**
 * The list-filter clause for a phase. `running` also finds jobs of earlier releases, which
 * publish `model` or `tools` instead; so do `model` and `tools`, refined by `exactPhaseOf`.
 */
export function phaseClause(phase: string): string {
  if (!FILTER_PHASES.includes(phase)) {
    throw new UsageError(`--phase must be one of ${FILTER_PHASES.join(', ')}, not "${phase}"`);
  }
  if (!RUNNING_VALUES.includes(phase)) return `${darPhaseKey.name} = '${phase}'`;
  return `${darPhaseKey.name} IN (${RUNNING_VALUES.map((value) => `'${value}'`).join(', ')})`;
}

/**
 * The phase a listed job's stored status must show for the filter to keep it (`model` or
 * `tools`: visibility only knows `running`); undefined when the list filter is exact.
 */
export function exactPhaseOf(filter: JobFilter): string | undefined {
  return filter.phase === 'model' || filter.phase === 'tools' ? filter.phase : undefined;
}

/**
 * Temporal's list filter for agent jobs: `WorkflowType = 'agentJob' AND DarBatchId = 'x' AND
 * DarPhase = 'done'`. The values are checked first (no quotes can get in).
 */
export function jobListQuery(filter: JobFilter): string {
  const clauses = [`WorkflowType = '${AGENT_WORKFLOW_TYPE}'`];
  if (filter.batch !== undefined) {
    clauses.push(`${darBatchIdKey.name} = '${checkBatchId(filter.batch, '--batch')}'`);
  }
  if (filter.phase !== undefined) clauses.push(phaseClause(filter.phase));
  if (filter.runningOnly) clauses.push(`ExecutionStatus = 'Running'`);
  return clauses.join(' AND ');
}
