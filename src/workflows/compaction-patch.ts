/**
 * Marks histories of jobs that compacted the model's context. `patched` is asked only when a
 * job reaches the threshold, so jobs that never do keep the commands (and histories) they had.
 */
export const COMPACTION_PATCH = 'dar-compaction';
