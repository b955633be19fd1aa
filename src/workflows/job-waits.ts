/**
 * What a job is waiting on, for `heldObjectsQuery` (see `heldObjectsOf`). A job is quiet when
 * it waits for something only the outside world sends (a message, or a decision on a call)
 * with nothing of its own under way: no model call and no tool body. Until that arrives it
 * starts nothing, so a pruner may count it as started when it answered.
 */
export interface JobWaits {
  /** Waiting for a message, its progress flushed (a kept-open job between runs). */
  message: boolean;
  /** Calls waiting for a decision (R22), each past the durable write of its request. */
  approvals: number;
  /** Model calls (with their compaction) and tool bodies under way. */
  activities: number;
}

export function noWaits(): JobWaits {
  return { message: false, approvals: 0, activities: 0 };
}

/** Whether the job waits only for the outside world (see {@link JobWaits}). */
export function isQuiet(waits: JobWaits): boolean {
  return waits.message || (waits.approvals > 0 && waits.activities === 0);
}
