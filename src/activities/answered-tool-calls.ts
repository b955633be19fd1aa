import { Context } from '@temporalio/activity';
import type { JobStore } from '../store/job-store.js';

/**
 * Record namespace of the calls of tools that are not replay-safe: one record per call that
 * ended, keyed by its activity's workflow run and id, holding what the call returns (references
 * and small facts) or its body's error text.
 *
 * Why: a worker can die, or its completion can be lost, after the body ran and its output was
 * stored but before Temporal recorded the activity as completed. Such a call has one attempt (its
 * body may not be safe to repeat), and without this record the model would be told the call was
 * interrupted and may have partially run, though it finished. With it, the workflow looks the
 * lost attempt up (`lookUpToolCallEnding`) and the model gets the call's real answer.
 */
export const ANSWERED_TOOL_CALL_RECORD = 'answered-tool-call';

/** How a call that ran ended: its result, or its body's error text. */
export type ToolCallEnding<Result = unknown> = { result: Result } | { failure: string };

/** The activity of a call, as the workflow names it when the activity failed. */
export interface ToolCallActivity {
  runId: string;
  activityId: string;
}

function recordKey({ runId, activityId }: ToolCallActivity): string {
  return `${runId}/${activityId}`;
}

/**
 * Remembers how the running activity's call ended, for {@link lookUpToolCallEnding}. Call it
 * only once everything `ending` names is stored. Not flushed to disk (`durable: false`): a process
 * crash keeps it, and a power loss at worst costs the answer it saves (the call is then reported
 * interrupted, as without the record).
 */
export async function rememberToolCallEnding(
  store: JobStore,
  ending: ToolCallEnding,
): Promise<void> {
  const info = Context.current().info;
  const call = { runId: info.workflowExecution?.runId ?? '', activityId: info.activityId };
  await store.putRecord(ANSWERED_TOOL_CALL_RECORD, recordKey(call), ending, { durable: false });
}

/** How the call of `activity` ended, when its attempt got as far as remembering it. */
export async function lookUpToolCallEnding<Result>(
  store: JobStore,
  activity: ToolCallActivity,
): Promise<ToolCallEnding<Result> | null> {
  const record = await store.getRecord(ANSWERED_TOOL_CALL_RECORD, recordKey(activity));
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return null;
  // Written by `rememberToolCallEnding` of the same call: its result is the activity's answer.
  if ('result' in record) return { result: record.result as Result };
  if (typeof record.failure === 'string') return { failure: record.failure };
  return null;
}
