import { randomBytes } from 'node:crypto';
import { open, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { errorCode } from './error-code.js';

export interface AtomicWriteOptions {
  /**
   * Runs after the new content is on disk in the temporary file and just before the rename: the
   * last moment at which the target still holds its old content (a test pause point).
   */
  beforeRename?: () => Promise<void>;
  /**
   * The temporary file to write, from {@link temporaryPathBeside} of the same path (default: a
   * new one). A caller that names it first can record the name, so that whoever takes over
   * after a crash can remove what the crash left.
   */
  temporary?: string;
}

/** A new name for the temporary file of a write of `path`: hidden, beside it, random. */
export function temporaryPathBeside(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
}

/** Whether `candidate` is a name {@link temporaryPathBeside} gives for `path`. */
export function isTemporaryPathBeside(path: string, candidate: string): boolean {
  const prefix = join(dirname(path), `.${basename(path)}.`);
  return candidate.startsWith(prefix) && /^[0-9a-f]{12}\.tmp$/.test(candidate.slice(prefix.length));
}

/** The permission bits of `path`, or undefined when it does not exist. */
async function existingMode(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).mode & 0o7777;
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

/** Makes a rename in `folder` durable; some file systems cannot sync a folder, which is fine. */
async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, 'r').catch(() => undefined);
  if (!handle) return;
  try {
    await handle.sync();
  } catch {
    // EINVAL/EISDIR on file systems without folder sync: the rename is still atomic.
  } finally {
    await handle.close();
  }
}

/**
 * Replaces `path` with `data` so that a reader (or a crash) sees either the old content or the
 * new, never a mix or an empty file: the data goes to a hidden temporary file in the same folder,
 * is synced, and is renamed over the target. The target keeps its permission bits; a new file
 * gets the default mode. On failure the temporary file is removed and the target is untouched; a
 * crash can leave at most a stray `.<name>.<random>.tmp` beside it (`options.temporary` lets the
 * caller record its name first).
 *
 * The parent folder must exist. A symlink at `path` is replaced by a regular file, so callers
 * pass a path whose links are already resolved.
 */
export async function writeFileAtomically(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const mode = await existingMode(path);
  const temporary = options.temporary ?? temporaryPathBeside(path);
  if (!isTemporaryPathBeside(path, temporary)) {
    throw new Error(`${temporary} is not a temporary file name for ${path}`);
  }
  try {
    const handle = await open(temporary, 'wx', mode ?? 0o666);
    try {
      await handle.writeFile(data);
      // open() applies the umask; an existing file's mode is restored exactly.
      if (mode !== undefined) await handle.chmod(mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await options.beforeRename?.();
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
  await syncFolder(dirname(path));
}
