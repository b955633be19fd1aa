import {
  JobStoreError,
  StoreUnavailableError,
  isRetryableStoreError,
} from '../../../src/store/index.js';
import { fileFailure } from '../../../src/store/file/file-errors.js';
import { postgresFailure } from '../../../src/store/postgres/postgres-errors.js';

const errno = (code: string) => Object.assign(new Error(`${code}: failed`), { code });

describe('which store failures are worth a retry', () => {
  test.each(['ENOSPC', 'EDQUOT', 'EMFILE', 'EIO', 'EBUSY'])('file system %s: retryable', (code) => {
    const failure = fileFailure(errno(code), 'write');
    expect(failure).toBeInstanceOf(StoreUnavailableError);
    expect(failure.retryable).toBe(true);
    expect(isRetryableStoreError(failure)).toBe(true);
    expect(failure.message).toContain(code);
    expect(failure.cause).toBeInstanceOf(Error);
  });

  test.each(['EACCES', 'EROFS', 'ENOTDIR', 'EISDIR'])('file system %s: not retryable', (code) => {
    const failure = fileFailure(errno(code), 'write');
    expect(failure).toBeInstanceOf(JobStoreError);
    expect(isRetryableStoreError(failure)).toBe(false);
  });

  test.each([
    ['connection refused', errno('ECONNREFUSED')],
    ['connection reset', errno('ECONNRESET')],
    ['DNS not answering', errno('EAI_AGAIN')],
    ['server shutting down (57P01)', errno('57P01')],
    ['server starting (57P03)', errno('57P03')],
    ['too many connections (53300)', errno('53300')],
    ['connection failure (08006)', errno('08006')],
    ['serialization failure (40001)', errno('40001')],
    ['pg: connection terminated', new Error('Connection terminated unexpectedly')],
    ['pg: pool timeout', new Error('timeout exceeded when trying to connect')],
    ['pg: no answer in time', new Error('Query read timeout')],
    [
      'every address refused',
      Object.assign(new AggregateError([errno('ECONNREFUSED'), errno('ECONNREFUSED')]), {
        code: 'ECONNREFUSED',
      }),
    ],
  ])('PostgreSQL %s: retryable', (_case, error) => {
    expect(isRetryableStoreError(postgresFailure(error, 'read'))).toBe(true);
  });

  test.each([
    ['syntax error (42601)', errno('42601')],
    ['undefined table (42P01)', errno('42P01')],
    ['bad password (28P01)', errno('28P01')],
    ['no such database (3D000)', errno('3D000')],
    ['a bug', new TypeError('x is not a function')],
  ])('PostgreSQL %s: not retryable', (_case, error) => {
    const failure = postgresFailure(error, 'read');
    expect(failure).toBeInstanceOf(JobStoreError);
    expect(isRetryableStoreError(failure)).toBe(false);
  });

  test('the marker survives a copy of the class (module duplication)', () => {
    const marked = Object.assign(new Error('copy'), {
      [Symbol.for('durable-agent-runner.RetryableStoreError')]: true,
    });
    expect(isRetryableStoreError(marked)).toBe(true);
    expect(isRetryableStoreError(new Error('plain'))).toBe(false);
  });
});
