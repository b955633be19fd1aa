import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/** Temporary files start with a dot, so no reader mistakes one for a stored file. */
export function isTemporaryName(name: string): boolean {
  return name.startsWith('.');
}

/**
 * Writes `text` to a new temporary file in `folder` and, when `flush`, flushes it to disk, so
 * that once it is renamed or linked into place it is whole even after a power loss. Returns
 * its path.
 */
export async function writeTemporaryFile(
  folder: string,
  text: string,
  flush: boolean,
): Promise<string> {
  const path = join(folder, `.${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(path, 'wx');
  try {
    await handle.writeFile(text, 'utf8');
    if (flush) await handle.sync();
  } catch (error) {
    await handle.close();
    await unlink(path).catch(() => undefined);
    throw error;
  }
  await handle.close();
  return path;
}

/**
 * Puts `text` at `path` whole or not at all: written to a temporary file in `folder` (flushed
 * when `flush`), then renamed over `path`. Rename is atomic: a reader sees the old file or the
 * new one, and of two writers the last rename wins.
 */
export async function replaceFile(
  folder: string,
  path: string,
  text: string,
  flush: boolean,
): Promise<void> {
  const temporary = await writeTemporaryFile(folder, text, flush);
  try {
    await rename(temporary, path);
  } catch (error) {
    await removeQuietly(temporary);
    throw error;
  }
}

export async function removeQuietly(path: string): Promise<void> {
  await unlink(path).catch(() => undefined);
}
