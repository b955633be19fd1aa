import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';

/** What {@link readSmallRegularFile} refuses: not a regular file, or one over the limit. */
export class UnreadableFileError extends Error {
  override readonly name = 'UnreadableFileError';
}

/**
 * The text of a regular file of at most `maximumBytes`, read synchronously (for callers that
 * must be: a key looked up inside a synchronous scrub, a script checked while a command builds
 * its input). A worker reads these on its event loop, so anything that could stall or flood it
 * is refused before a byte is read: a named pipe (opened without blocking: a blocking open waits
 * for a writer, for ever, and with it every job of the worker), a device such as /dev/zero, a
 * socket, a folder ({@link UnreadableFileError}, saying which). Errors of the file system are
 * thrown as they are (with their `code`), for the caller to describe.
 */
export function readSmallRegularFile(path: string, maximumBytes: number): string {
  const descriptor = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stats = fstatSync(descriptor);
    if (!stats.isFile()) {
      throw new UnreadableFileError('not a regular file (a folder, pipe, device or socket)');
    }
    if (stats.size > maximumBytes) {
      throw new UnreadableFileError(`${stats.size} bytes, over the limit of ${maximumBytes}`);
    }
    return readFileSync(descriptor, 'utf8');
  } finally {
    closeSync(descriptor);
  }
}
