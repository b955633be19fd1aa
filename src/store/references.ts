/**
 * The job store's plain data types. No Node imports: workflow code may import this file to
 * carry references and event numbers in its state.
 */

/** A JSON value as the store hands it back. */
export type JsonValue =
  null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** `sha256:<64 lowercase hex>` of a value's canonical JSON (see `canonicalJson`). */
export type ObjectRef = `sha256:${string}`;

const OBJECT_REF_PATTERN = /^sha256:[0-9a-f]{64}$/;

export function isObjectRef(value: unknown): value is ObjectRef {
  return typeof value === 'string' && OBJECT_REF_PATTERN.test(value);
}

/**
 * A value as a store will keep it, named by the reference it will have there, not stored yet
 * (see `JobStore.prepareObject`).
 */
export interface PreparedObject {
  readonly ref: ObjectRef;
  /** What the store keeps: the value itself, or the value sealed by an encrypting store. */
  readonly stored: unknown;
}

/** One event to append: `seq` is its number in the job's stream (1, 2, 3 ...). */
export interface EventToAppend {
  seq: number;
  /** Any JSON value (checked like `canonicalJson` does). */
  event: unknown;
}

/** How `appendEvents` treats a seq that is stored already. */
export interface AppendEventsOptions {
  /**
   * Replace a stored seq whose content differs instead of rejecting with `EventConflict`. For
   * the job's own progress writer only: a workflow task that failed after writing its events
   * is run again, and the run that history keeps decides what each seq holds.
   */
  replace?: boolean;
}

export interface PutRecordOptions {
  /**
   * False for a record that a later write repeats (a running job's status, rewritten at its
   * next step and written durably when the job waits or ends): the store need not have it on
   * stable storage when the promise resolves (the file store does not flush it, which saves a
   * flush on every write). After a power loss such a record may read as the one before it, or
   * as missing. Default true: the record is durable when the promise resolves.
   */
  durable?: boolean;
}

/** One stored event. */
export interface StoredEvent {
  seq: number;
  event: JsonValue;
}

/** Which events `readEvents` returns. */
export interface ReadEventsOptions {
  /** Events with a seq above this one (default 0: from the start). */
  afterSeq?: number;
  /** At most this many events (default {@link DEFAULT_EVENT_PAGE_LIMIT}). */
  limit?: number;
  /**
   * At most this many bytes of canonical JSON, counted event by event (default
   * {@link DEFAULT_EVENT_PAGE_BYTES}); a page always holds at least one event when one exists.
   */
  maxBytes?: number;
}

export const DEFAULT_EVENT_PAGE_LIMIT = 1000;
export const DEFAULT_EVENT_PAGE_BYTES = 4 * 1024 * 1024;
