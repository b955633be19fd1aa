import { WorkflowFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import type { AssistantMessage, Message, Usage } from '../core/index.js';
import { statusQuery } from '../workflows/definitions.js';
import type { AgentJobResult } from '../workflows/job-types.js';

export type TaskStatus = 'completed' | 'failed' | 'cancelled';

/** How a task's job ended, read from its workflow. */
export interface TaskOutcome {
  status: TaskStatus;
  /** The final assistant message's text ('' when there is none). */
  text: string;
  /** Tokens and cost of the whole job; null when the job's state could not be read. */
  usage: Usage | null;
  error?: string;
}

/** How long reading the usage of a failed or cancelled job may take. */
const USAGE_QUERY_MS = 5000;

/** The text blocks of the last assistant message. */
export function finalText(messages: Message[]): string {
  const last = messages.findLast(
    (message): message is AssistantMessage => message.role === 'assistant',
  );
  return (last?.content ?? [])
    .flatMap((block) => (block.type === 'text' ? [block.text] : []))
    .join('');
}

function fromResult(result: AgentJobResult): TaskOutcome {
  const text = finalText(result.messages);
  const usage = result.status.usage;
  // A run that ended on an error (a model call that failed for good, a used-up script) failed.
  if (result.status.stopReason === 'error') {
    return { status: 'failed', text, usage, error: result.status.errorMessage ?? 'run error' };
  }
  if (result.status.stopReason === 'aborted' || result.status.cancelled) {
    return { status: 'cancelled', text, usage };
  }
  return { status: 'completed', text, usage };
}

/**
 * A closed job has no result to read its usage from when it was cancelled or failed; its status
 * query (answered by a worker replaying it) still has it. Best effort: null when none answers.
 */
async function usageOfClosedJob(client: Client, handle: WorkflowHandle): Promise<Usage | null> {
  try {
    const status = await client.connection.withDeadline(Date.now() + USAGE_QUERY_MS, () =>
      handle.query(statusQuery),
    );
    return status.usage;
  } catch {
    return null;
  }
}

/**
 * Waits for a task's job to close (following continue-as-new) and says how it ended. Throws only
 * when Temporal cannot be reached.
 */
export async function outcomeOf(client: Client, handle: WorkflowHandle): Promise<TaskOutcome> {
  try {
    return fromResult((await handle.result()) as AgentJobResult);
  } catch (error) {
    if (!(error instanceof WorkflowFailedError)) throw error;
    const usage = await usageOfClosedJob(client, handle);
    if (error.cause instanceof CancelledFailure) return { status: 'cancelled', text: '', usage };
    const reason = error.cause?.message ?? error.message;
    return { status: 'failed', text: '', usage, error: reason };
  }
}
