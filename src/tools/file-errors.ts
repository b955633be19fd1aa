import { MAXIMUM_QUOTED_LENGTH, quoteBounded } from '../core/index.js';
import { errorCode } from './error-code.js';

/**
 * Turns the common file system errors into messages the model can act on (R16). The path is
 * model input of any length: only a bounded prefix of it is quoted, and a system error whose own
 * message holds a long path is cut too.
 */
export function describeFileError(error: unknown, path: string): Error {
  const options = { cause: error };
  const shown = quoteBounded(path);
  switch (errorCode(error)) {
    case 'ENOENT':
      return new Error(`File not found: ${shown}`, options);
    case 'EISDIR':
      return new Error(`${shown} is a folder, not a file (use ls to list it)`, options);
    case 'ENOTDIR':
      return new Error(`${shown}: a part of this path is a file, not a folder`, options);
    case 'EACCES':
    case 'EPERM':
      return new Error(`Permission denied: ${shown}`, options);
    case 'ENAMETOOLONG':
      return new Error(
        `Path too long for the file system (${path.length} characters): ${shown}`,
        options,
      );
    default:
      return boundedError(error);
  }
}

/** The error itself when its message is short; else a copy with the message cut. */
export function boundedError(error: unknown): Error {
  const message = error instanceof Error ? error.message : String(error);
  const limit = 2 * MAXIMUM_QUOTED_LENGTH;
  if (error instanceof Error && message.length <= limit) return error;
  return new Error(quoteBounded(message, limit), { cause: error });
}
