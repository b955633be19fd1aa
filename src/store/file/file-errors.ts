import { JobStoreError, StoreUnavailableError } from '../store-errors.js';

/**
 * File system errors that another attempt may not meet: a full disk or quota, too many open
 * files, a busy or briefly failing device, a stale network mount.
 */
const RETRYABLE_CODES = new Set([
  'ENOSPC',
  'EDQUOT',
  'EMFILE',
  'ENFILE',
  'EAGAIN',
  'EBUSY',
  'EIO',
  'ETIMEDOUT',
  'ESTALE',
  'EINTR',
]);

export function errnoCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** A file system error as a store error saying what was being done. */
export function fileFailure(error: unknown, action: string): JobStoreError {
  if (error instanceof JobStoreError) return error;
  const message = `Job store: could not ${action}: ${error instanceof Error ? error.message : String(error)}`;
  const code = errnoCode(error);
  return code !== undefined && RETRYABLE_CODES.has(code)
    ? new StoreUnavailableError(message, { cause: error })
    : new JobStoreError(message, { cause: error });
}
