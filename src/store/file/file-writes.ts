import { randomBytes } from 'node:crypto';
import { closeSync, fsync, linkSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { open, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/*
 * Why some calls here are synchronous: a turn makes dozens of file-system calls, and each
 * asynchronous one is a hand-off to libuv's thread pool and back, which on a busy machine costs
 * more than the call itself (a wake-up of a pool thread, often a context switch, then a wake-up
 * of the event loop). A metadata call (link, rename, unlink, stat) or the write of a small file
 * into the page cache takes microseconds on a local disk, so those are made synchronously; a
 * flush to disk, and the write of a large file, stay asynchronous and never hold up the event
 * loop. The store's folder is local by design (beside the dev server's database).
 */

/** Texts up to this many characters are written synchronously (into the page cache). */
const SMALL_TEXT_CHARACTERS = 64 * 1024;

/**
 * The name of a temporary file `writeTemporaryFile` makes: a dot (so that no reader mistakes
 * it for a stored file), the writer's pid, random hex. One a writer's death left behind is
 * removed by the store's clean-up (`FileMaintenance.removeAbandonedWrites`).
 */
const TEMPORARY_NAME = /^\.\d+-[0-9a-f]{12}\.tmp$/;

export function isTemporaryName(name: string): boolean {
  return TEMPORARY_NAME.test(name);
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
  if (text.length > SMALL_TEXT_CHARACTERS) {
    await writeLargeFile(path, text, flush);
    return path;
  }
  const descriptor = openSync(path, 'wx');
  try {
    writeSync(descriptor, text, null, 'utf8');
    if (flush) await flushDescriptor(descriptor);
  } catch (error) {
    closeSync(descriptor);
    removeQuietlyNow(path);
    throw error;
  }
  closeSync(descriptor);
  return path;
}

async function writeLargeFile(path: string, text: string, flush: boolean): Promise<void> {
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
}

function flushDescriptor(descriptor: number): Promise<void> {
  return new Promise((resolve, reject) => {
    fsync(descriptor, (error) => (error ? reject(error) : resolve()));
  });
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
    renameSync(temporary, path);
  } catch (error) {
    removeQuietlyNow(temporary);
    throw error;
  }
}

/** A hard link `path` to `existing`; fails with `EEXIST` when `path` exists (atomically). */
export function linkNow(existing: string, path: string): void {
  linkSync(existing, path);
}

/** Removes `path` if it is there (for clean-up: a failure is ignored). */
export function removeQuietly(path: string): Promise<void> {
  removeQuietlyNow(path);
  return Promise.resolve();
}

function removeQuietlyNow(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone, or its folder is: nothing to remove.
  }
}
