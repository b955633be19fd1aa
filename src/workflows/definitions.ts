import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { Message } from '../core/index.js';
import type { ApprovalDecided, ApprovalDecisionInput, PendingApproval } from './approval-types.js';
import type { HeldObjects } from './held-objects.js';
import type { BudgetExceeded } from './job-budget.js';
import type { JobStatus, SequencedEvent } from './job-types.js';

/** A message to inject before the job's next model call (R20). */
export const steerSignal = defineSignal<[text: string]>('steer');
/** A message that starts another turn when the agent would stop (R20). */
export const followUpSignal = defineSignal<[text: string]>('followUp');

/**
 * The job's batch spent its budget (`dar batch --max-...`): the job ends at its next turn
 * boundary, as if its own budget were spent, never during a tool body. Sent by `dar batch`.
 */
export const batchBudgetSignal = defineSignal<[exceeded: BudgetExceeded]>('batchBudgetExceeded');

export const statusQuery = defineQuery<JobStatus>('status');
/** Events after a sequence number (at most `limit`, and fewer past ~1 MiB of JSON). */
export const eventsQuery = defineQuery<SequencedEvent[], [afterSeq: number, limit?: number]>(
  'events',
);
/**
 * What the job holds of the job store, for `dar prune` (see `HeldObjects`): a job waiting for a
 * message or an approval then does not hold the object cutoff back to its first start.
 */
export const heldObjectsQuery = defineQuery<HeldObjects>('darHeldObjects');
/**
 * The transcript's messages from index `from` (default 0), fewer past ~1 MiB of JSON: read on
 * from `from + page.length` until a page is empty.
 */
export const transcriptQuery = defineQuery<Message[], [from?: number]>('transcript');

/**
 * Decides a tool call that waits for approval (R22): `approve` runs it, `deny` answers it with
 * an error result carrying the note. The validator refuses, before anything is recorded, a call
 * id that does not wait (`UnknownApproval`) or one already decided (`ApprovalAlreadyDecided`):
 * a call is decided once, whoever asks twice. Answers with the recorded decision.
 */
export const decideApprovalUpdate = defineUpdate<ApprovalDecided, [ApprovalDecisionInput]>(
  'decideApproval',
);
/** The calls waiting for a decision, oldest first (at most `PENDING_APPROVALS_LIMIT`). */
export const pendingApprovalsQuery = defineQuery<PendingApproval[]>('pendingApprovals');
