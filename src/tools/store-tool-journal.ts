import type { JobStore } from '../store/job-store.js';
import type { ToolJournal, ToolJournalEntry } from './tool-journal.js';

/** Store record namespace of the tool journal (key: the call's idempotency key). */
export const TOOL_JOURNAL_RECORD = 'tool-journal';

/**
 * The tool journal in the job store: every worker that shares the store (all workers of a
 * cluster, with `DAR_STORE_URL`) sees the same journal, so a call retried on another machine
 * still finds what the first attempt applied. Records are durable when `putRecord` resolves.
 */
export function storeToolJournal(store: JobStore): ToolJournal {
  return {
    async get(key) {
      const record = await store.getRecord(TOOL_JOURNAL_RECORD, key);
      return record === undefined ? undefined : (record as unknown as ToolJournalEntry);
    },
    put: (key, entry) => store.putRecord(TOOL_JOURNAL_RECORD, key, entry),
  };
}
