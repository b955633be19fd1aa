import { JobStoreError, StoreUnavailableError } from '../store-errors.js';

/** Socket errors: the database is unreachable or the connection broke. */
const RETRYABLE_NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

/**
 * SQLSTATEs worth another attempt: connection exceptions (class 08), insufficient resources
 * (53: too many connections, disk full), the server shutting down or starting (57P01-57P03),
 * serialization failures and deadlocks (40001, 40P01), system and I/O errors (58000, 58030).
 */
const RETRYABLE_SQLSTATE = /^(08|53|57P0[123]|40001|40P01|58000|58030)/;

/** Errors `pg` raises with only a message when a connection ends or cannot be made. */
const RETRYABLE_MESSAGE =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|not queryable|Connection ended|Query read timeout/i;

/** A `pg` error as a store error: retryable when the database is out of reach. */
export function postgresFailure(error: unknown, action: string): JobStoreError {
  if (error instanceof JobStoreError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  const message = `Job store (PostgreSQL): could not ${action}: ${detail}`;
  return isRetryablePostgresError(error)
    ? new StoreUnavailableError(message, { cause: error })
    : new JobStoreError(message, { cause: error });
}

export function isRetryablePostgresError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (RETRYABLE_NODE_CODES.has(code) || RETRYABLE_SQLSTATE.test(code)) return true;
  }
  if (typeof message === 'string' && RETRYABLE_MESSAGE.test(message)) return true;
  // Node's `AggregateError` from a connect to several addresses (IPv4 and IPv6).
  const inner = (error as { errors?: unknown }).errors;
  return Array.isArray(inner) && inner.some(isRetryablePostgresError);
}
