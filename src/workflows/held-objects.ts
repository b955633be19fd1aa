import { allHandlersFinished } from '@temporalio/workflow';
import { referencesIn } from '../retention/reference-scan.js';
import type { JsonValue, ObjectRef } from '../store/references.js';
import { unstoredMessages, type JobState } from './job-state.js';
import type { AgentJobInput } from './job-types.js';

/**
 * What a running job holds of the job store, as it answers a pruner (`heldObjectsQuery`).
 *
 * Contract: when `settled` is true, the job was quiet when it answered (`JobWaits`): waiting
 * for a message, or for a decision on a call, with no model call, tool body or handler under
 * way; and `refs` names every object its state refers to that its stored transcript does not
 * reach (the transcript's head among them, and the stored results of a batch's finished calls).
 * Until a message or a decision arrives it starts nothing; after that, every object it comes to
 * refer to is one an activity puts (or puts again, which refreshes it) from then on, or one
 * those reach. A pruner may therefore treat such a job as started when it answered, once it
 * keeps what `refs` reaches. When `settled` is false, `refs` is empty and the job holds the
 * object cutoff back to its first start, as any workflow that does not answer does.
 */
export interface HeldObjects {
  settled: boolean;
  refs: ObjectRef[];
}

/** Past this many references a job answers unsettled (the answer stays a few tens of KB). */
export const HELD_REFERENCES_LIMIT = 1000;

/**
 * The job's answer to `heldObjectsQuery`. `quiet`: see `isQuiet`. Its messages the stored
 * transcript covers are left out (its head reaches them); everything else in its state and
 * input is scanned, so a field added later is covered.
 */
export function heldObjectsOf(input: AgentJobInput, state: JobState, quiet: boolean): HeldObjects {
  if (!quiet || !allHandlersFinished()) return { settled: false, refs: [] };
  const refs = new Set<ObjectRef>();
  const held = { input, state: { ...state, messages: unstoredMessages(state) } };
  referencesIn(held as unknown as JsonValue, (ref) => refs.add(ref));
  if (refs.size > HELD_REFERENCES_LIMIT) return { settled: false, refs: [] };
  return { settled: true, refs: [...refs] };
}
