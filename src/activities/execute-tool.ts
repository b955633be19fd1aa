import { CancelledFailure, Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  MAXIMUM_ERROR_TEXT_LENGTH,
  messageOf,
  quoteBounded,
  type ToolExecutionResult,
} from '../core/index.js';
import { isRetryableToolError } from '../tools/retryable-tool-error.js';
import type { ToolExecutionContext, ToolImplementation } from '../tools/tool-implementation.js';
import type { ToolJournal } from '../tools/tool-journal.js';
import { boundToolResult } from './bound-tool-result.js';
import { AbandonedAfterAbort, settleOrAbandon } from './abort-grace.js';
import { heartbeatWhile } from './heartbeat-while.js';

export interface ExecuteToolInput {
  toolName: string;
  toolCallId: string;
  /** Validated by the workflow's preflight. */
  args: unknown;
  workspace: string;
  /** Stable across attempts: the workflow id, the turn and the tool call id (R24). */
  idempotencyKey: string;
}

/** Error type of a tool body's own failure: the model reads the message (R16). */
export const TOOL_FAILURE = 'ToolFailure';

/**
 * Runs one prepared call's body. A body's thrown error is final (non-retryable) unless the
 * tool marks it retryable; crashes and timeouts are retried by the tool's retry policy when the
 * tool is replay-safe (the workflow gives any other tool one attempt). What leaves the activity
 * is bounded (limits.ts): the result's output and details, and the error text. A cancelled call
 * ends at most `ABORT_GRACE_MS` after the cancellation, even when its body ignores the signal.
 */
export function makeExecuteTool(
  tools: ReadonlyMap<string, ToolImplementation>,
  journal: ToolJournal,
) {
  return async function executeTool(
    input: ExecuteToolInput,
    onUpdate?: ToolExecutionContext['onUpdate'],
  ): Promise<ToolExecutionResult> {
    const tool = tools.get(input.toolName);
    if (!tool) {
      throw ApplicationFailure.nonRetryable(
        `Tool ${input.toolName} has no implementation on this worker`,
        'ToolNotRegistered',
      );
    }
    const context = Context.current();
    try {
      const result = await heartbeatWhile(() =>
        settleOrAbandon(
          tool.execute(input.args as never, {
            workspace: input.workspace,
            signal: context.cancellationSignal,
            toolCallId: input.toolCallId,
            idempotencyKey: input.idempotencyKey,
            journal,
            heartbeat: (details) => context.heartbeat(details),
            ...(onUpdate ? { onUpdate } : {}),
          }),
          context.cancellationSignal,
        ),
      );
      return boundToolResult(result);
    } catch (error) {
      if (error instanceof AbandonedAfterAbort) {
        context.log.warn(`Tool ${input.toolName}: ${error.message}`);
      }
      if (context.cancellationSignal.aborted) throw new CancelledFailure('Tool call cancelled');
      // The same text as a body run in-process gives (JSON for a thrown plain object).
      const message = quoteBounded(messageOf(error), MAXIMUM_ERROR_TEXT_LENGTH);
      if (isRetryableToolError(error)) throw ApplicationFailure.retryable(message, TOOL_FAILURE);
      throw ApplicationFailure.nonRetryable(message, TOOL_FAILURE);
    }
  };
}
