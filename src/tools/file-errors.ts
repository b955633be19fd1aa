import { errorCode } from './error-code.js';

/** Turns the common file system errors into messages the model can act on (R16). */
export function describeFileError(error: unknown, path: string): Error {
  const options = { cause: error };
  switch (errorCode(error)) {
    case 'ENOENT':
      return new Error(`File not found: ${path}`, options);
    case 'EISDIR':
      return new Error(`${path} is a folder, not a file (use ls to list it)`, options);
    case 'ENOTDIR':
      return new Error(`${path}: a part of this path is a file, not a folder`, options);
    case 'EACCES':
    case 'EPERM':
      return new Error(`Permission denied: ${path}`, options);
    default:
      return error instanceof Error ? error : new Error(String(error), options);
  }
}
