/**
 * The shapes of durable approval (R22): what the job keeps about a call that waits for a human,
 * what an operator sends to decide it, and the events followers see. Plain JSON, workflow-safe.
 */

/** How a call's approval was decided. A type, not an interface: events are plain records. */
export type ApprovalOutcome = {
  decision: 'approve' | 'deny';
  /**
   * `operator`: through the `decideApproval` update; `timeout`: the rule's deadline passed;
   * `cancelled`: the job was cancelled while the call waited (decision `deny`).
   */
  source: 'operator' | 'timeout' | 'cancelled';
  /** Who decided, as the operator gave it (`dar approve` sends the user name). */
  by?: string;
  note?: string;
  /** Workflow time of the decision, ms since the epoch. */
  at: number;
};

/** A call the policy sent for approval, as the job keeps it (in its state and continue-as-new). */
export interface JobApproval {
  toolCallId: string;
  toolName: string;
  /** The call's validated arguments as JSON, cut to {@link APPROVAL_ARGUMENTS_CHARS}. */
  args: string;
  /** The policy rule's reason, shown to the approver (cut to {@link APPROVAL_REASON_CHARS} in the query's answer). */
  reason: string;
  /** Workflow time when the call started to wait. */
  requestedAt: number;
  /** When the wait ends by itself (then `onTimeout` decides); unset: no deadline. */
  deadline?: number;
  onTimeout?: 'deny' | 'allow';
  /** The turn (model call number) whose batch holds the call. */
  turn: number;
  /** Set once decided; the entry is then kept a little while to refuse a second decision. */
  outcome?: ApprovalOutcome;
}

/** What an operator sends to decide a waiting call (the `decideApproval` update's argument). */
export interface ApprovalDecisionInput {
  toolCallId: string;
  decision: 'approve' | 'deny';
  /** Shown to the model with a denial, and recorded in the `approval_decided` event. */
  note?: string;
  /** Who decides; recorded as it is. */
  by?: string;
}

/** The answer of the `decideApproval` update: the call and how it was decided. */
export interface ApprovalDecided {
  jobId: string;
  toolCallId: string;
  toolName: string;
  outcome: ApprovalOutcome;
}

/** One waiting call as the `pendingApprovals` query answers it. */
export type PendingApproval = Omit<JobApproval, 'outcome'>;

/** A call started to wait for a decision. A type, not an interface: events are plain records. */
export type ApprovalRequestedEvent = {
  type: 'approval_requested';
  toolCallId: string;
  toolName: string;
  /** The call's arguments, whole. */
  args: unknown;
  reason: string;
  requestedAt: number;
  deadline?: number;
  onTimeout?: 'deny' | 'allow';
};

/**
 * A waiting call was decided (by an operator or its deadline), or stopped waiting because the
 * job was cancelled (`cancelled: true`, decision `deny`; the call ends as `Operation aborted`).
 */
export type ApprovalDecidedEvent = {
  type: 'approval_decided';
  toolCallId: string;
  toolName: string;
} & ApprovalOutcome;

export type ApprovalEvent = ApprovalRequestedEvent | ApprovalDecidedEvent;

/** Arguments longer than this (as JSON) are cut in the job's state and the query's answer. */
export const APPROVAL_ARGUMENTS_CHARS = 2000;
/**
 * A reason longer than this is cut in the query's answer (a client other than `dar` may start a
 * job with a longer one; `dar` refuses it, see `checkPolicyLimits`).
 */
export const APPROVAL_REASON_CHARS = 2000;
/** Notes and names longer than this are refused by the update's validator. */
export const APPROVAL_NOTE_CHARS = 2000;
export const APPROVAL_BY_CHARS = 200;
/** The `pendingApprovals` query answers at most this many calls (oldest first). */
export const PENDING_APPROVALS_LIMIT = 100;
/** Decided approvals kept to refuse a late second decision. */
export const DECIDED_APPROVALS_KEPT = 20;
