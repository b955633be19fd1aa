import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { quoteBounded } from '../core/index.js';

/**
 * Bytes of a file that `read` and `edit` load whole. Far above any source file or the logs a
 * model reads usefully; a larger one would cost several times its size in memory (buffer, text,
 * lines), on a worker that runs other jobs' tools too.
 */
export const MAXIMUM_FILE_BYTES = 32 * 1024 * 1024;

/**
 * The whole content of a regular file of at most `maximumBytes`. Anything else is refused
 * with a message the model can act on, before a byte is read: a named pipe (opening one to read
 * waits for a writer, for ever, and holds one of the worker's few file-system threads while it
 * waits; hence the non-blocking open), a device such as /dev/zero (endless), a socket, a folder,
 * a file too large. Errors of the file system are thrown as they are, for the caller to describe.
 */
export async function readRegularFile(
  path: string,
  displayPath: string,
  signal: AbortSignal,
  maximumBytes = MAXIMUM_FILE_BYTES,
): Promise<Buffer> {
  const { handle, size } = await openRegularFile(path, displayPath);
  try {
    if (size > maximumBytes) {
      throw new Error(
        `${quoteBounded(displayPath)} is ${size} bytes, over the limit of ` +
          `${maximumBytes} bytes for this tool; look at parts of it with bash ` +
          '(head, tail, sed -n, grep)',
      );
    }
    return await handle.readFile({ signal });
  } finally {
    await handle.close();
  }
}

/**
 * The SHA-256 (hex) of a regular file's content, read in chunks: memory stays small whatever
 * the file's size. Refuses what `readRegularFile` refuses, except for size.
 */
export async function hashRegularFile(
  path: string,
  displayPath: string,
  signal: AbortSignal,
): Promise<string> {
  const { handle } = await openRegularFile(path, displayPath);
  try {
    const hash = createHash('sha256');
    const chunk = Buffer.allocUnsafe(HASH_CHUNK_BYTES);
    for (;;) {
      signal.throwIfAborted();
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) return hash.digest('hex');
      hash.update(chunk.subarray(0, bytesRead));
    }
  } finally {
    await handle.close();
  }
}

const HASH_CHUNK_BYTES = 1024 * 1024;

/**
 * Opens `path` to read if it is a regular file (without waiting on a pipe), with its size, or
 * throws why not.
 */
async function openRegularFile(
  path: string,
  displayPath: string,
): Promise<{ handle: FileHandle; size: number }> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) {
      throw new Error(`${quoteBounded(displayPath)} is a folder, not a file (use ls to list it)`);
    }
    if (!stats.isFile()) {
      throw new Error(
        `${quoteBounded(displayPath)} is not a regular file (a pipe, device or socket), ` +
          'so it was not read',
      );
    }
    return { handle, size: stats.size };
  } catch (error) {
    await handle.close();
    throw error;
  }
}
