import { Context } from '@temporalio/activity';
import type { JobStore } from '../store/job-store.js';
import { isObjectRef, type ObjectRef } from '../store/references.js';

/**
 * Record namespace of the last paid model call of each job (one record per job, replaced by
 * the job's next call): the references of what the call stored, under the call's identity.
 *
 * Why: a worker can die, or its completion can be lost, after the provider answered and the
 * answer was stored but before Temporal recorded the activity as completed. Temporal then runs
 * the same activity again; without this record that attempt would send the same request and pay
 * for it a second time. With it, the attempt finds what the first one stored and returns that.
 */
export const ANSWERED_CALL_RECORD = 'answered-model-call';

interface AnsweredCall {
  /** The activity's run and id: the same on every attempt of one call, unique otherwise. */
  call: string;
  answer: unknown;
}

function currentCall(): string {
  const info = Context.current().info;
  return `${info.workflowExecution?.runId ?? 'no-workflow'}/${info.activityId}`;
}

/**
 * What an earlier attempt of the running activity remembered with {@link rememberAnsweredCall},
 * or undefined: on a first attempt (nothing to look for, no read), or when no earlier attempt
 * got as far (the record then names another call, or is missing). A retryable store error
 * rejects, for the caller's store retry.
 */
export async function rememberedAnswer(store: JobStore, jobId: string): Promise<unknown> {
  if (Context.current().info.attempt <= 1) return undefined;
  const record = await store.getRecord(ANSWERED_CALL_RECORD, jobId);
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return undefined;
  const { call, answer } = record as Partial<AnsweredCall>;
  return call === currentCall() && answer !== undefined ? answer : undefined;
}

/**
 * Remembers what the running activity stored for its paid call (references and small facts,
 * not the content), for {@link rememberedAnswer} on its next attempt. Call it only once everything
 * `answer` names is stored. Not flushed to disk (`durable: false`): a process crash keeps it,
 * and a power loss at worst costs the one payment it saves.
 */
export async function rememberAnsweredCall(
  store: JobStore,
  jobId: string,
  answer: unknown,
): Promise<void> {
  const record: AnsweredCall = { call: currentCall(), answer };
  await store.putRecord(ANSWERED_CALL_RECORD, jobId, record, { durable: false });
}

/** What a model call remembers: the references of the answer, its transcript node and setup. */
export interface StoredAnswer {
  answer: ObjectRef;
  node: ObjectRef;
  /** The setup, when this call stored it. */
  setup?: ObjectRef;
}

/** Whether a remembered value is a model call's {@link StoredAnswer}. */
export function isStoredAnswer(value: unknown): value is StoredAnswer {
  if (typeof value !== 'object' || value === null) return false;
  const { answer, node, setup } = value as Partial<StoredAnswer>;
  return isObjectRef(answer) && isObjectRef(node) && (setup === undefined || isObjectRef(setup));
}
