import type { ToolExecutionResult } from '../core/index.js';

/** The content hash of a file that does not exist. */
export const ABSENT = 'absent';

/**
 * What a tool records before it applies a change to a file, so that a later attempt of the same
 * call (same idempotency key) can tell whether the change already happened.
 */
export interface ToolJournalEntry {
  /** The call's idempotency key (R24). */
  key: string;
  /** The absolute path of the changed file. */
  path: string;
  /** sha256 (hex) of the file's content before the change, or {@link ABSENT}. */
  before: string;
  /** sha256 (hex) of the file's content after the change. */
  after: string;
  /** What the call returned (or will return) for the change. */
  result: ToolExecutionResult;
  /** ISO time of the record; old entries may be pruned. */
  recordedAt: string;
  /**
   * The temporary file the attempt writes the new content to before renaming it over `path`. A
   * later attempt removes it: the one that recorded it may have died before its rename. Absent
   * from entries of earlier releases (a journal may also drop it: nothing is removed then).
   */
  temporary?: string;
}

/**
 * Durable memory of the changes tool calls made, by idempotency key: how a body that may run
 * more than once (R24) applies its side effect once.
 *
 * Contract: `put` resolves only once the entry is durable (a crash after it cannot lose it) and
 * replaces any entry of the same key; `get` returns the last entry put for `key`, or undefined.
 * Both reject on a storage failure. Keys are opaque strings; backends must not assume a format.
 */
export interface ToolJournal {
  get(key: string): Promise<ToolJournalEntry | undefined>;
  put(key: string, entry: ToolJournalEntry): Promise<void>;
}
