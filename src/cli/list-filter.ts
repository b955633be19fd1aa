import { checkBatchId } from '../batch/batch-id.js';
import { AGENT_WORKFLOW_TYPE } from '../client/job-client.js';
import { DAR_PHASES, darBatchIdKey, darPhaseKey } from '../workflows/search-attributes.js';
import { UsageError } from './usage-error.js';

export interface JobFilter {
  batch?: string | undefined;
  phase?: string | undefined;
  /** Only jobs still running (`dar cancel --batch`). */
  runningOnly?: boolean;
}

/**
 * Temporal's list filter for agent jobs: `WorkflowType = 'agentJob' AND DarBatchId = 'x' AND
 * DarPhase = 'tools'`. The values are checked first (no quotes can get in).
 */
export function jobListQuery(filter: JobFilter): string {
  const clauses = [`WorkflowType = '${AGENT_WORKFLOW_TYPE}'`];
  if (filter.batch !== undefined) {
    clauses.push(`${darBatchIdKey.name} = '${checkBatchId(filter.batch, '--batch')}'`);
  }
  if (filter.phase !== undefined) {
    if (!(DAR_PHASES as readonly string[]).includes(filter.phase)) {
      throw new UsageError(
        `--phase must be one of ${DAR_PHASES.join(', ')}, not "${filter.phase}"`,
      );
    }
    clauses.push(`${darPhaseKey.name} = '${filter.phase}'`);
  }
  if (filter.runningOnly) clauses.push(`ExecutionStatus = 'Running'`);
  return clauses.join(' AND ');
}
