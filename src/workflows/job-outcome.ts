import type { AssistantMessage, Message } from '../core/index.js';
import { budgetMessage, type BudgetExceeded } from './job-budget.js';
import type { JobStatus } from './job-types.js';

export type JobOutcomeStatus = 'completed' | 'failed' | 'cancelled';

/** How a job ended, decided in one place for the workflow, `dar run` and `dar batch`. */
export interface JobOutcome {
  status: JobOutcomeStatus;
  /** The final assistant message's text ('' when there is none). */
  text: string;
  /** Why it failed, for `failed`. */
  error?: string;
  /** For a job its budget stopped (a `failed` one): which limit, used and max. */
  budgetExceeded?: BudgetExceeded;
}

/** The text blocks of the last assistant message. */
export function finalText(messages: readonly Message[]): string {
  const last = messages.findLast(
    (message): message is AssistantMessage => message.role === 'assistant',
  );
  return (last?.content ?? [])
    .flatMap((block) => (block.type === 'text' ? [block.text] : []))
    .join('');
}

/**
 * The outcome of a run that returned: a run that ended on an error (a model call that failed for
 * good, a used-up script) failed; an aborted one was cancelled; one its budget stopped failed,
 * with `budgetExceeded` and an error naming the limit (`dar run` exits 3 for it); any other
 * completed.
 */
export function jobOutcome(status: JobStatus, messages: readonly Message[]): JobOutcome {
  const text = finalText(messages);
  if (status.stopReason === 'error') {
    return { status: 'failed', text, error: status.errorMessage ?? 'run error' };
  }
  if (status.stopReason === 'aborted' || status.cancelled) return { status: 'cancelled', text };
  if (status.budgetExceeded) {
    const budgetExceeded = status.budgetExceeded;
    return { status: 'failed', text, error: budgetMessage(budgetExceeded), budgetExceeded };
  }
  return { status: 'completed', text };
}
