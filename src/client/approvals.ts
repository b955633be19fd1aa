import {
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { checkBatchId } from '../batch/batch-id.js';
import type {
  ApprovalDecided,
  ApprovalDecisionInput,
  PendingApproval,
} from '../workflows/approval-types.js';
import { decideApprovalUpdate, pendingApprovalsQuery } from '../workflows/definitions.js';
import { darBatchIdKey, darPhaseKey } from '../workflows/search-attributes.js';
import { AGENT_WORKFLOW_TYPE } from './job-client.js';

/** A waiting call with the job it belongs to. */
export interface PendingApprovalRow extends PendingApproval {
  jobId: string;
  batchId?: string;
}

/** Why a decision was refused; `dar approve` exits 2 on any of them. */
export type ApprovalRefusal = 'unknown' | 'decided' | 'invalid' | 'not-running';

/** A decision the job refused (unknown call, already decided) or could not take (no such job). */
export class ApprovalRefusedError extends Error {
  constructor(
    message: string,
    readonly refusal: ApprovalRefusal,
  ) {
    super(message);
    this.name = 'ApprovalRefusedError';
  }
}

/** Reads one job's waiting calls; the default asks the workflow's `pendingApprovals` query. */
export type PendingReader = (handle: WorkflowHandle) => Promise<PendingApproval[]>;

export interface ListApprovalsOptions {
  /** Only jobs of this batch (`DarBatchId`). */
  batchId?: string;
  /** Jobs looked at, at most (default 200): each costs a query. */
  maxJobs?: number;
  read?: PendingReader;
}

/** The list filter of running jobs where a call waits for approval, optionally in one batch. */
export function approvalJobsQuery(batchId?: string): string {
  const clauses = [
    `WorkflowType = '${AGENT_WORKFLOW_TYPE}'`,
    `${darPhaseKey.name} = 'approval'`,
    `ExecutionStatus = 'Running'`,
  ];
  if (batchId !== undefined) {
    clauses.push(`${darBatchIdKey.name} = '${checkBatchId(batchId, '--batch')}'`);
  }
  return clauses.join(' AND ');
}

const QUERIES_AT_ONCE = 8;

/**
 * Every call waiting for a decision across running jobs (R22), oldest first: jobs are found
 * through visibility (`DarPhase = 'approval'`), then each answers its small `pendingApprovals`
 * query. A job whose calls were decided meanwhile simply has none.
 */
export async function listPendingApprovals(
  client: Client,
  options: ListApprovalsOptions = {},
): Promise<PendingApprovalRow[]> {
  const maxJobs = options.maxJobs ?? 200;
  const read = options.read ?? ((handle) => handle.query(pendingApprovalsQuery));
  const jobs: { jobId: string; batchId?: string }[] = [];
  for await (const execution of client.workflow.list({
    query: approvalJobsQuery(options.batchId),
  })) {
    if (jobs.length >= maxJobs) break;
    const batchId = execution.typedSearchAttributes.get(darBatchIdKey);
    jobs.push({ jobId: execution.workflowId, ...(batchId === undefined ? {} : { batchId }) });
  }
  const rows: PendingApprovalRow[] = [];
  for (let start = 0; start < jobs.length; start += QUERIES_AT_ONCE) {
    const answers = await Promise.all(
      jobs.slice(start, start + QUERIES_AT_ONCE).map(async (job) => {
        try {
          const pending = await read(client.workflow.getHandle(job.jobId));
          return pending.map((call) => ({ ...job, ...call }));
        } catch (error) {
          // Closed since it was listed: nothing waits there any more.
          if (error instanceof WorkflowNotFoundError) return [];
          throw error;
        }
      }),
    );
    rows.push(...answers.flat());
  }
  return rows.sort((a, b) => a.requestedAt - b.requestedAt);
}

const REFUSALS: Record<string, ApprovalRefusal> = {
  UnknownApproval: 'unknown',
  ApprovalAlreadyDecided: 'decided',
  BadApprovalDecision: 'invalid',
};

export interface DecideOptions {
  /**
   * The update's id. The same id sent again (a retry after a lost answer) is the same
   * decision, recorded once. Default: a fresh one.
   */
  updateId?: string;
}

/**
 * Decides one waiting call through the job's `decideApproval` update. Resolves with the
 * recorded decision; rejects with {@link ApprovalRefusedError} when the job refused it (unknown
 * call, already decided, bad input) or does not run.
 */
export async function decideApproval(
  client: Client,
  jobId: string,
  input: ApprovalDecisionInput,
  options: DecideOptions = {},
): Promise<ApprovalDecided> {
  const handle = client.workflow.getHandle(jobId);
  try {
    return await handle.executeUpdate(decideApprovalUpdate, {
      args: [input],
      updateId: options.updateId ?? `approval-${input.toolCallId}-${crypto.randomUUID()}`,
    });
  } catch (error) {
    throw refusalOf(error, jobId) ?? error;
  }
}

function refusalOf(error: unknown, jobId: string): ApprovalRefusedError | undefined {
  if (error instanceof WorkflowNotFoundError) {
    return new ApprovalRefusedError(`no running job with id ${jobId}`, 'not-running');
  }
  if (error instanceof WorkflowUpdateFailedError) {
    const cause = error.cause;
    if (cause instanceof ApplicationFailure && cause.type && cause.type in REFUSALS) {
      return new ApprovalRefusedError(cause.message, REFUSALS[cause.type] ?? 'invalid');
    }
  }
  // A job whose workflow is closed, or one that has no approvals (an earlier release's).
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : '';
  const text = error instanceof Error ? `${error.message} ${cause}` : '';
  if (/already completed|not found|workflow execution.*(closed|completed)/i.test(text)) {
    return new ApprovalRefusedError(`job ${jobId} is not running`, 'not-running');
  }
  if (/update.*(not registered|unknown update|no handler)/i.test(text)) {
    return new ApprovalRefusedError(`job ${jobId} cannot take approvals`, 'unknown');
  }
  return undefined;
}

export interface BatchDecisionResult {
  decided: ApprovalDecided[];
  /** Calls that could not be decided (decided meanwhile by someone else, say). */
  refused: { jobId: string; toolCallId: string; message: string }[];
}

/**
 * Sends one decision to one job. Contract: resolves with the recorded decision, or rejects with
 * {@link ApprovalRefusedError} when the job refused it; it must pass `updateId` on, so that a
 * try repeated after a lost answer is recorded once. The default calls {@link decideApproval};
 * a caller whose jobs may have no worker running wraps it in one that brings its own.
 */
export type ApprovalDecider = (
  jobId: string,
  input: ApprovalDecisionInput,
  options: Required<DecideOptions>,
) => Promise<ApprovalDecided>;

export interface BatchDecisionOptions extends ListApprovalsOptions {
  decide?: ApprovalDecider;
}

/**
 * Decides every call waiting in a batch's jobs alike (`dar approve --batch ID --all`). Calls
 * decided meanwhile by someone else are reported in `refused`, not decided twice.
 */
export async function decideBatchApprovals(
  client: Client,
  batchId: string,
  decision: Omit<ApprovalDecisionInput, 'toolCallId'>,
  options: BatchDecisionOptions = {},
): Promise<BatchDecisionResult> {
  const decide: ApprovalDecider =
    options.decide ?? ((jobId, input, how) => decideApproval(client, jobId, input, how));
  const pending = await listPendingApprovals(client, { ...options, batchId });
  const result: BatchDecisionResult = { decided: [], refused: [] };
  for (const call of pending) {
    const updateId = `approval-${call.toolCallId}-${crypto.randomUUID()}`;
    try {
      result.decided.push(
        await decide(call.jobId, { ...decision, toolCallId: call.toolCallId }, { updateId }),
      );
    } catch (error) {
      if (!(error instanceof ApprovalRefusedError)) throw error;
      result.refused.push({
        jobId: call.jobId,
        toolCallId: call.toolCallId,
        message: error.message,
      });
    }
  }
  return result;
}
