import type { ObjectRef } from './references.js';

/**
 * How long a put of an object that is already stored may skip refreshing its put time: a value
 * stored again within this time of its last put (or refresh) is left as it is, which saves a
 * write on every turn that stores the same transcript node or answer again. A pruner must
 * therefore never treat an object put less than this long ago as unused (its grace is longer).
 */
export const OBJECT_TOUCH_INTERVAL_MS = 10 * 60 * 1000;

/** A record's key and when it was last written (ms since the epoch, the store's clock). */
export interface RecordKey {
  key: string;
  writtenAtMs: number;
}

/** An object (one put before a cutoff, or since), and its stored size. */
export interface StaleObject {
  ref: ObjectRef;
  bytes: number;
}

/** What `removeObjectsPutBefore` removed. */
export interface RemovedObjects {
  count: number;
  bytes: number;
}

/** What `removeAbandonedWrites` found (and removed, unless it only counted). */
export interface AbandonedWrites {
  count: number;
  /** What removing them frees (a file that is also stored under another name frees nothing). */
  bytes: number;
}

/**
 * A store backend's clean-up operations, for a pruner (`dar prune`), never for jobs. They work
 * on the backend itself, below any encryption: keys and times, no values.
 *
 * Contract on objects: every put of an object refreshes its put time, unless it was put or
 * refreshed less than {@link OBJECT_TOUCH_INTERVAL_MS} ago. `removeObjectsPutBefore` removes an
 * object only if its put time is still before the cutoff when it is removed, atomically with
 * respect to a concurrent put: a put that returned before the removal keeps the object (it
 * refreshed the time, and the removal sees it), and a put after it stores the object again.
 * A reader of an object being considered may find it missing only if it was removed.
 */
export interface StoreMaintenance {
  /**
   * Now by the clock that stamps the store's put and write times (the database server's for
   * PostgreSQL), in ms since the epoch: cutoffs are measured on it.
   */
  currentTimeMs(): Promise<number>;

  /** Every key of `namespace`, with when its record was last written; in no set order. */
  listRecordKeys(namespace: string): AsyncIterable<RecordKey>;

  /** Deletes the record under `(namespace, key)`; nothing when there is none. */
  deleteRecord(namespace: string, key: string): Promise<void>;

  /** Deletes the job's event stream and its live stream (and the live stream's count). */
  deleteJobStreams(jobId: string): Promise<void>;

  /** The objects last put (or refreshed) before `cutoffMs`, a page at a time, in no set order. */
  listObjectsPutBefore(cutoffMs: number): AsyncIterable<readonly StaleObject[]>;

  /** The objects put (or refreshed) at or after `cutoffMs`, a page at a time, in no set order. */
  listObjectsPutSince(cutoffMs: number): AsyncIterable<readonly StaleObject[]>;

  /** Removes those of `refs` whose put time is still before `cutoffMs` (see the contract). */
  removeObjectsPutBefore(refs: readonly ObjectRef[], cutoffMs: number): Promise<RemovedObjects>;

  /**
   * What writers left half-made when their process died in the middle of a write (the embedded
   * store's temporary files), last written before `cutoffMs`: counted, and removed when
   * `remove`. Nothing refers to such a leftover, and a write in progress is never that old, so
   * removing one loses nothing. A backend whose writes are transactions leaves none.
   */
  removeAbandonedWrites(cutoffMs: number, remove: boolean): Promise<AbandonedWrites>;
}
