import type {
  AppendEventsOptions,
  EventToAppend,
  JsonValue,
  ObjectRef,
  PreparedObject,
  PutRecordOptions,
  ReadEventsOptions,
  StoredEvent,
} from './references.js';
import type { LiveEventStore } from './live-events.js';
import type { StoreMaintenance } from './store-maintenance.js';

/**
 * The data plane of agent jobs: content-addressed objects (messages, large tool results), a
 * per-job append-only event stream, and a small key-value table. Writers are activities that
 * may run more than once, so every write is idempotent; readers are activities and clients.
 *
 * Errors: every method may reject with a `JobStoreError`. Those with `retryable: true`
 * (`StoreUnavailableError`: database down, connection lost, disk full) may succeed on another
 * attempt; the others (`ObjectNotFound`, `EventConflict`, `StoreCorruptionError`,
 * `NotJsonError`, bad arguments, a closed store) will not.
 */
export interface JobStore extends LiveEventStore {
  /**
   * Stores a JSON value once under its reference (`objectRef(value)`) and returns the
   * reference. Contract: idempotent; storing a value that is already there, concurrently too,
   * stores nothing new and returns the same reference. Rejects with `NotJsonError` for a value
   * JSON cannot carry exactly (see `canonicalJson`). Object key order does not matter.
   */
  putObject(value: unknown): Promise<ObjectRef>;

  /** `putObject` for many values; the references are in the values' order. */
  putObjects(values: readonly unknown[]): Promise<ObjectRef[]>;

  /**
   * Names `value` without storing it: the reference `putPreparedObjects` will store it under,
   * for objects that name each other and are best written together (an answer and the
   * transcript node that appends it, in one statement or one round of flushes instead of two
   * in a row). Local and synchronous: no I/O (an encrypting store seals the value here).
   * Throws `NotJsonError` as `putObject` rejects. The result is for this store's
   * `putPreparedObjects` only, unchanged.
   */
  prepareObject(value: unknown): PreparedObject;

  /**
   * Stores objects named by `prepareObject`, together, as `putObjects` stores values
   * (idempotent, concurrently too). Rejects with a `JobStoreError` that is not retryable when
   * an object does not hash to its reference (prepared by another store, or changed since).
   */
  putPreparedObjects(objects: readonly PreparedObject[]): Promise<void>;

  /**
   * The value stored under `ref`. Rejects with `ObjectNotFound` when there is none, and with
   * `StoreCorruptionError` when the stored text does not hash to `ref` (never returns it).
   */
  getObject(ref: ObjectRef): Promise<JsonValue>;

  /** `getObject` for many references, in their order; `ObjectNotFound` if any is missing. */
  getObjects(refs: readonly ObjectRef[]): Promise<JsonValue[]>;

  /**
   * Appends events to a job's stream. Contract: idempotent by `(jobId, seq)`: a seq already
   * stored with the same content (compared as canonical JSON) is skipped, so a retried
   * activity can append its batch again; a seq stored with different content rejects with
   * `EventConflict` (the other events of the batch may be stored). Seqs are positive integers
   * numbered without gaps (1, 2, 3 ...); see `followEvents` for writers that finish out of
   * order. With `options.replace`, a differing seq is overwritten instead (the last writer wins).
   */
  appendEvents(
    jobId: string,
    events: readonly EventToAppend[],
    options?: AppendEventsOptions,
  ): Promise<void>;

  /**
   * A page of a job's events above `afterSeq`, in seq order, bounded by `limit` events and by
   * `maxBytes` of canonical JSON; at least one event when any exists. An unknown job has none.
   */
  readEvents(jobId: string, options?: ReadEventsOptions): Promise<StoredEvent[]>;

  /** The highest seq stored for the job, 0 when it has none. */
  lastSeq(jobId: string): Promise<number>;

  /**
   * Tails a job's stream: yields the events above `afterSeq` that exist now, then new ones as
   * they are appended (polled every few hundred milliseconds; on PostgreSQL also woken by
   * LISTEN/NOTIFY), in seq order. A missing seq
   * with later ones stored (two writers finishing out of order) is waited for a moment
   * (`FollowOptions.gapWaitMs`), then passed. Ends (without an error) when `signal` aborts; a
   * read error ends it with that error, and the caller may follow again from the last seq it
   * saw.
   */
  followEvents(jobId: string, afterSeq: number, signal: AbortSignal): AsyncIterable<StoredEvent>;

  /**
   * Stores a small JSON record under `(namespace, key)`, replacing what was there
   * (last writer wins). For small values (a tool journal entry), not for transcripts. Durable
   * when the promise resolves unless `options.durable` is false (see `PutRecordOptions`).
   */
  putRecord(
    namespace: string,
    key: string,
    value: unknown,
    options?: PutRecordOptions,
  ): Promise<void>;

  /** The record under `(namespace, key)`, or undefined when there is none. */
  getRecord(namespace: string, key: string): Promise<JsonValue | undefined>;

  /**
   * The backend's clean-up operations (`dar prune`), below any encryption; a store that wraps
   * another passes its inner store's on. Undefined for a store that has none.
   */
  maintenance?(): StoreMaintenance | undefined;

  /** Releases connections; every later call rejects. Safe to call twice. */
  close(): Promise<void>;
}
