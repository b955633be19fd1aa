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
