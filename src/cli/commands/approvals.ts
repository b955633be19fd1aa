import { userInfo } from 'node:os';
import type { WorkflowHandle } from '@temporalio/client';
import {
  ApprovalRefusedError,
  decideApproval,
  decideBatchApprovals,
  listPendingApprovals,
  type PendingApprovalRow,
} from '../../client/approvals.js';
import { getJob } from '../../client/job-client.js';
import type { ApprovalDecided } from '../../workflows/approval-types.js';
import { pendingApprovalsQuery } from '../../workflows/definitions.js';
import { openConnection, type CliConnection } from '../connection.js';
import { readJob } from '../job-reader.js';
import { StandbyWorker } from '../standby-worker.js';
import { parseFlags } from '../parse-flags.js';
import { jobIdArgument } from '../job-id-argument.js';
import { endedJobDecision } from '../ended-approval.js';
import { EXIT_OK, EXIT_USAGE, UsageError } from '../usage-error.js';
import { terminalText } from '../../client/terminal-text.js';

const ARGUMENTS_SHOWN = 120;

function shortened(text: string, length = ARGUMENTS_SHOWN): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= length ? flat : `${flat.slice(0, length - 1)}…`;
}

function duration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h${String(minutes % 60).padStart(2, '0')}m`;
  return `${Math.floor(hours / 24)}d${hours % 24}h`;
}

/**
 * A job's waiting calls through its query; a workflow-only worker answers when none runs (the
 * `standby` one, when given, so that many jobs share one).
 */
function pendingReader(connection: CliConnection, standby?: StandbyWorker) {
  return (handle: WorkflowHandle) =>
    readJob(
      connection,
      getJob(connection.client, handle.workflowId, connection.store),
      (job) => job.handle.query(pendingApprovalsQuery),
      standby,
    );
}

function printPending(row: PendingApprovalRow, now: number): void {
  const deadline =
    row.deadline === undefined
      ? 'no deadline'
      : `deadline ${new Date(row.deadline).toISOString()} (in ${duration(row.deadline - now)}, then ${row.onTimeout ?? 'deny'})`;
  const lines = [
    `${row.jobId}  call ${row.toolCallId}  ${row.toolName}  waiting ${duration(now - row.requestedAt)}  ${deadline}`,
    `    reason: ${shortened(row.reason, 400)}`,
    `    args:   ${shortened(row.args)}`,
  ];
  // The arguments are what a person approves: shown as they would run, not as a terminal
  // would render them (a right-to-left override could make `rm -rf` read as something else).
  console.log(terminalText(lines.join('\n')));
}

/** `dar approvals [--batch ID] [--json]`: every tool call waiting for a decision (R22). */
export async function approvalsCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(
    'approvals',
    argv,
    { batch: { type: 'string' }, json: { type: 'boolean' }, 'state-dir': { type: 'string' } },
    { min: 0, max: 0, names: 'no argument' },
  );
  const connection = await openConnection(values['state-dir']);
  const standby = new StandbyWorker(connection);
  try {
    const rows = await listPendingApprovals(connection.client, {
      ...(values.batch === undefined ? {} : { batchId: values.batch }),
      read: pendingReader(connection, standby),
    }).finally(() => standby.close());
    const now = Date.now();
    for (const row of rows) {
      if (values.json) console.log(JSON.stringify({ ...row, ageMs: now - row.requestedAt }));
      else printPending(row, now);
    }
    if (rows.length === 0 && !values.json) console.log('No tool calls wait for approval.');
    return EXIT_OK;
  } finally {
    await connection.close();
  }
}

function operatorName(): string | undefined {
  try {
    return userInfo().username || undefined;
  } catch {
    return process.env.USER || undefined;
  }
}

function describeDecided(decided: ApprovalDecided): string {
  const verb = decided.outcome.decision === 'approve' ? 'Approved' : 'Denied';
  return `${verb} call ${decided.toolCallId} (${decided.toolName}) of ${decided.jobId}`;
}

/**
 * `dar approve JOB CALL [--note TEXT]` and `dar deny ...`; `--batch ID --all` decides every
 * call waiting in a batch's jobs. An unknown or already decided call exits 2.
 */
export function decideCommand(decision: 'approve' | 'deny') {
  return async (argv: string[]): Promise<number> => {
    const { values, positionals } = parseFlags(
      decision,
      argv,
      {
        note: { type: 'string' },
        by: { type: 'string' },
        batch: { type: 'string' },
        all: { type: 'boolean' },
        'state-dir': { type: 'string' },
      },
      { min: 0, max: 2, names: 'a job id and a call id (or --batch ID --all)' },
    );
    const bulk = values.batch !== undefined;
    if (bulk && (!values.all || positionals.length > 0)) {
      throw new UsageError(`dar ${decision}: --batch ID needs --all and no job or call id`);
    }
    if (!bulk && (values.all || positionals.length !== 2)) {
      throw new UsageError(`dar ${decision}: give a job id and a call id, or --batch ID --all`);
    }
    const jobId = bulk ? '' : jobIdArgument(positionals);
    const by = values.by ?? operatorName();
    const choice = {
      decision,
      ...(values.note === undefined ? {} : { note: values.note }),
      ...(by === undefined ? {} : { by }),
    };
    const connection = await openConnection(values['state-dir']);
    try {
      if (values.batch !== undefined) {
        // With no worker running, one workflow-only worker of this command's takes the queries
        // and the decisions of every job of the batch.
        const standby = new StandbyWorker(connection);
        const { decided, refused } = await decideBatchApprovals(
          connection.client,
          values.batch,
          choice,
          {
            read: pendingReader(connection, standby),
            decide: (jobId, input, how) =>
              readJob(
                connection,
                getJob(connection.client, jobId, connection.store),
                () => decideApproval(connection.client, jobId, input, how),
                standby,
              ),
          },
        ).finally(() => standby.close());
        for (const call of decided) console.log(terminalText(describeDecided(call)));
        for (const call of refused) {
          process.stderr.write(terminalText(`dar ${decision}: ${call.message}\n`));
        }
        if (decided.length + refused.length === 0) {
          console.log(`No tool calls wait for approval in batch ${values.batch}.`);
        }
        return refused.length > 0 ? EXIT_USAGE : EXIT_OK;
      }
      const toolCallId = positionals[1] ?? '';
      // One id for both tries below: a retry is the same decision, recorded once.
      const updateId = `approval-${toolCallId}-${crypto.randomUUID()}`;
      const job = getJob(connection.client, jobId, connection.store);
      const decided = await readJob(connection, job, () =>
        decideApproval(connection.client, jobId, { ...choice, toolCallId }, { updateId }),
      ).catch(async (error: unknown) => {
        // A job that has ended: say how the call was decided while it ran, if it was.
        if (!(error instanceof ApprovalRefusedError) || error.refusal !== 'not-running')
          throw error;
        const ended = await endedJobDecision(job, toolCallId);
        throw ended === undefined ? error : new UsageError(terminalText(ended));
      });
      console.log(terminalText(describeDecided(decided)));
      return EXIT_OK;
    } catch (error) {
      if (error instanceof ApprovalRefusedError) throw new UsageError(error.message);
      throw error;
    } finally {
      await connection.close();
    }
  };
}
