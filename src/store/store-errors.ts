import type { ObjectRef } from './references.js';

const RETRYABLE = Symbol.for('durable-agent-runner.RetryableStoreError');

/**
 * A job store failure. `retryable` says whether another attempt may succeed (the database is
 * down, the disk is full): activities retry those with backoff and fail at once on the rest,
 * which are bugs or bad settings.
 */
export class JobStoreError extends Error {
  override readonly name: string = 'JobStoreError';
  readonly retryable: boolean = false;
}

/**
 * The store cannot be reached or cannot write right now (connection refused or lost, the
 * server shutting down, ENOSPC ...). Marked with a symbol as well as the flag, so that
 * {@link isRetryableStoreError} recognises it across duplicated module copies.
 */
export class StoreUnavailableError extends JobStoreError {
  override readonly name = 'StoreUnavailableError';
  override readonly retryable = true;
  readonly [RETRYABLE] = true;
}

/**
 * What a missing object means for a job whose data it was, for messages to add: the store does
 * not hold what the job stored (nothing else deletes it).
 */
const MISSING_JOB_DATA =
  "this job store does not hold the job's data (deleted by dar prune or by hand, or the worker " +
  'or command uses another store than the one the job started on: check DAR_STORE_URL and ' +
  '--state-dir)';

/** No object is stored under this reference. */
export class ObjectNotFound extends JobStoreError {
  override readonly name = 'ObjectNotFound';
  constructor(readonly ref: ObjectRef) {
    super(`No object is stored under ${ref}`);
  }
}

/**
 * An event with this seq is already stored with other content. Appends are idempotent only
 * for the same content: two different events under one number is a bug in the writer.
 */
export class EventConflict extends JobStoreError {
  override readonly name = 'EventConflict';
  constructor(
    readonly jobId: string,
    readonly seq: number,
  ) {
    super(`Event ${seq} of job ${jobId} is already stored with different content`);
  }
}

/** Stored data does not match its reference or cannot be read back: never returned as data. */
export class StoreCorruptionError extends JobStoreError {
  override readonly name = 'StoreCorruptionError';
}

/** Bad store settings (a malformed `DAR_STORE_URL`). */
export class StoreSettingsError extends JobStoreError {
  override readonly name = 'StoreSettingsError';
}

/** Whether an error from the store is worth another attempt. */
export function isRetryableStoreError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && RETRYABLE in error;
}

/**
 * An error's text for a reader of a job (a job's failure, `dar`, the console): a missing
 * object's says what it means for the job ({@link MISSING_JOB_DATA}).
 */
export function describeStoreError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return error instanceof ObjectNotFound ? `${message}: ${MISSING_JOB_DATA}` : message;
}
