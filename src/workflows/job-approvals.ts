import {
  ApplicationFailure,
  condition,
  isCancellation,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { ApprovalDecision, ApprovalRequest, PreparedToolCall } from '../core/index.js';
import {
  APPROVAL_ARGUMENTS_CHARS,
  APPROVAL_REASON_CHARS,
  APPROVAL_BY_CHARS,
  APPROVAL_NOTE_CHARS,
  DECIDED_APPROVALS_KEPT,
  PENDING_APPROVALS_LIMIT,
  type ApprovalDecided,
  type ApprovalDecisionInput,
  type ApprovalOutcome,
  type JobApproval,
  type PendingApproval,
} from './approval-types.js';
import { decideApprovalUpdate, pendingApprovalsQuery } from './definitions.js';
import { pendingApprovals, toolsPhase } from './approval-state.js';
import type { JobState } from './job-state.js';
import type { JobWaits } from './job-waits.js';
import type { PublishJobState } from './job-visibility.js';
import type { ProgressRecorder } from './progress-recorder.js';

function cutText(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

function argumentsText(args: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(args) ?? '';
  } catch {
    text = String(args);
  }
  return cutText(text, APPROVAL_ARGUMENTS_CHARS);
}

function rejected(type: string, message: string): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: true });
}

function optionalText(value: unknown, field: string, max: number): void {
  if (value === undefined) return;
  if (typeof value !== 'string' || value.length > max) {
    throw rejected('BadApprovalDecision', `${field} must be a string of at most ${max} characters`);
  }
}

/**
 * The update's validator: a well-formed decision for a call that waits now. Runs before the
 * update is recorded: a refused decision leaves no trace in the job's history.
 */
function checkDecision(state: JobState, input: ApprovalDecisionInput): JobApproval {
  if (typeof input !== 'object' || input === null) {
    throw rejected('BadApprovalDecision', 'a decision must be an object');
  }
  if (input.decision !== 'approve' && input.decision !== 'deny') {
    throw rejected('BadApprovalDecision', 'decision must be "approve" or "deny"');
  }
  optionalText(input.note, 'note', APPROVAL_NOTE_CHARS);
  optionalText(input.by, 'by', APPROVAL_BY_CHARS);
  const id = input.toolCallId;
  const waiting = state.approvals.find(
    (approval) => approval.toolCallId === id && approval.outcome === undefined,
  );
  if (waiting) return waiting;
  const decided = state.approvals.findLast((approval) => approval.toolCallId === id);
  if (decided?.outcome) {
    const { decision, source, by, at } = decided.outcome;
    const verb = decision === 'approve' ? 'approved' : 'denied';
    const how =
      source === 'operator'
        ? `${verb}${by ? ` by ${by}` : ''}`
        : source === 'timeout'
          ? `${verb} on timeout`
          : 'ended by the job being cancelled';
    throw rejected(
      'ApprovalAlreadyDecided',
      `call ${id} of job ${workflowInfo().workflowId} was already ${how} at ${new Date(at).toISOString()}`,
    );
  }
  throw rejected(
    'UnknownApproval',
    `job ${workflowInfo().workflowId} has no call ${String(id)} waiting for approval`,
  );
}

/** Keeps the decided entries to the last few, so the state (and continue-as-new) stays small. */
function forgetOldDecisions(state: JobState): void {
  const decided = state.approvals.filter((approval) => approval.outcome !== undefined);
  const drop = new Set(decided.slice(0, Math.max(0, decided.length - DECIDED_APPROVALS_KEPT)));
  if (drop.size > 0) state.approvals = state.approvals.filter((approval) => !drop.has(approval));
}

export interface JobApprovalsOptions {
  state: JobState;
  progress: ProgressRecorder;
  publish: PublishJobState;
  /** Counts the calls waiting past their request's durable write (see `JobWaits`). */
  waits: JobWaits;
}

/**
 * Durable approval in the workflow (R22). Installs the `decideApproval` update and the
 * `pendingApprovals` query, and returns the loop's `awaitApproval` effect: the waiting call is
 * part of the job's state, the deadline a durable timer, the decision an update recorded in
 * history once. Cancelling the job while a call waits ends the wait (the core then answers the
 * call `Operation aborted`, R21).
 */
export function installJobApprovals(options: JobApprovalsOptions) {
  const { state, progress, publish, waits } = options;

  // Called only while a batch runs (a call starts or stops waiting): `tools` or `approval`.
  const showPhase = (): void => {
    const phase = toolsPhase(state);
    if (state.phase === phase) return;
    state.phase = phase;
    publish(state.phase, state.modelCalls);
    progress.statusChanged();
  };

  const decide = (approval: JobApproval, outcome: ApprovalOutcome): void => {
    approval.outcome = outcome;
    progress.record({
      type: 'approval_decided',
      toolCallId: approval.toolCallId,
      toolName: approval.toolName,
      decision: outcome.decision,
      source: outcome.source,
      ...(outcome.by === undefined ? {} : { by: outcome.by }),
      ...(outcome.note === undefined ? {} : { note: outcome.note }),
      at: outcome.at,
    });
  };

  setHandler(
    decideApprovalUpdate,
    (input): ApprovalDecided => {
      // Checked again: two updates handled in one activation were both valid when validated.
      const approval = checkDecision(state, input);
      const outcome: ApprovalOutcome = {
        decision: input.decision,
        source: 'operator',
        ...(input.by === undefined ? {} : { by: input.by }),
        ...(input.note === undefined ? {} : { note: input.note }),
        at: Date.now(),
      };
      decide(approval, outcome);
      return {
        jobId: workflowInfo().workflowId,
        toolCallId: approval.toolCallId,
        toolName: approval.toolName,
        outcome,
      };
    },
    { validator: (input: ApprovalDecisionInput) => void checkDecision(state, input) },
  );
  setHandler(pendingApprovalsQuery, (): PendingApproval[] =>
    pendingApprovals(state)
      .slice(0, PENDING_APPROVALS_LIMIT)
      // The answer must stay far below gRPC's 4 MB, whatever reason a client's policy gave.
      .map(({ outcome: _outcome, ...pending }) => ({
        ...pending,
        reason: cutText(pending.reason, APPROVAL_REASON_CHARS),
      })),
  );

  return async function awaitApproval(
    call: PreparedToolCall,
    request: ApprovalRequest,
  ): Promise<ApprovalDecision> {
    const requestedAt = Date.now();
    const onTimeout = request.onTimeout === 'approve' ? 'allow' : 'deny';
    const approval: JobApproval = {
      toolCallId: call.toolCall.id,
      toolName: call.tool.name,
      args: argumentsText(call.args),
      reason: request.reason,
      requestedAt,
      ...(request.timeoutMs === undefined
        ? {}
        : { deadline: requestedAt + request.timeoutMs, onTimeout }),
      turn: state.modelCalls,
    };
    state.approvals.push(approval);
    progress.record({
      type: 'approval_requested',
      toolCallId: approval.toolCallId,
      toolName: approval.toolName,
      args: call.args,
      reason: approval.reason,
      requestedAt,
      ...(approval.deadline === undefined ? {} : { deadline: approval.deadline, onTimeout }),
    });
    showPhase();
    let counted = false;
    try {
      // The wait may last days: its request is written durably first, for followers.
      await progress.flush();
      waits.approvals += 1;
      counted = true;
      const hasOutcome = () => approval.outcome !== undefined;
      const decided =
        request.timeoutMs === undefined
          ? (await condition(hasOutcome), true)
          : await condition(hasOutcome, request.timeoutMs);
      if (!decided && approval.outcome === undefined) {
        const decision = onTimeout === 'allow' ? 'approve' : 'deny';
        decide(approval, { decision, source: 'timeout', at: Date.now() });
      }
    } catch (error) {
      // R21: the job was cancelled while the call waited; the core answers it as aborted.
      if (isCancellation(error) && approval.outcome === undefined) {
        decide(approval, { decision: 'deny', source: 'cancelled', at: Date.now() });
      }
      throw error;
    } finally {
      if (counted) waits.approvals -= 1;
      forgetOldDecisions(state);
      showPhase();
    }
    const outcome = approval.outcome ?? { decision: 'deny', source: 'timeout', at: Date.now() };
    if (outcome.decision === 'approve') return { approved: true };
    return { approved: false, reason: denialText(approval, outcome) };
  };
}

/** What the model reads when its call was denied (R22: the reviewer's reason). */
function denialText(approval: JobApproval, outcome: ApprovalOutcome): string {
  if (outcome.source === 'timeout') {
    return `Tool ${approval.toolName} was not approved in time: denied when the approval deadline passed`;
  }
  const who = outcome.by ? ` by ${outcome.by}` : '';
  const note = outcome.note ? `: ${outcome.note}` : '';
  return `Tool ${approval.toolName} was denied${who}${note}`;
}
