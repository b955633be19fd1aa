import { statSync, utimesSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeObject, textMatchesRef } from '../object-ref.js';
import { checkRef } from '../store-arguments.js';
import { ObjectNotFound, StoreCorruptionError } from '../store-errors.js';
import { OBJECT_TOUCH_INTERVAL_MS } from '../store-maintenance.js';
import type { JsonValue, ObjectRef } from '../references.js';
import { errnoCode, fileFailure } from './file-errors.js';
import { replaceFile } from './file-writes.js';
import { KnownFolders } from './known-folders.js';

/** Where a pruner moves an object it is about to remove (see `FileMaintenance`). */
export const REMOVING_FOLDER = 'removing';

/**
 * Objects as `objects/<first 2 hex>/<64 hex>.json`, each holding the value's own JSON (see `encodeObject`).
 * A write goes to a temporary file in the same folder, flushed, then renamed into place:
 * rename is atomic, so a crash leaves no half object, and two writers of the same value
 * rename the same bytes over each other, which is harmless. A file's modification time is
 * the object's put time: storing a value that is there already refreshes it (at most every
 * `OBJECT_TOUCH_INTERVAL_MS`), so that a pruner sees the object is in use.
 */
export class FileObjects {
  private readonly folders = new KnownFolders();

  constructor(
    readonly folder: string,
    private readonly flush: boolean,
  ) {}

  async put(value: unknown): Promise<ObjectRef> {
    const { ref, text } = encodeObject(value);
    const { folder, path } = this.location(ref);
    try {
      if (refreshIfStored(path)) return ref;
      await this.folders.withFolder(folder, () => replaceFile(folder, path, text, this.flush));
      return ref;
    } catch (error) {
      throw fileFailure(error, `store object ${ref}`);
    }
  }

  async get(ref: ObjectRef): Promise<JsonValue> {
    checkRef(ref);
    const text = await this.readText(ref);
    // A file changed on disk (bit rot, a hand edit, a torn write) must not pass for data.
    if (!textMatchesRef(ref, text)) {
      throw new StoreCorruptionError(`Object ${ref} on disk does not match its hash`);
    }
    return JSON.parse(text) as JsonValue;
  }

  /** Where `ref` is stored: its folder and file. */
  location(ref: ObjectRef): { folder: string; path: string } {
    const hex = ref.slice('sha256:'.length);
    const folder = join(this.folder, hex.slice(0, 2));
    return { folder, path: join(folder, `${hex}.json`) };
  }

  /** Where a pruner holds `ref` while it decides (see `FileMaintenance`). */
  removingPath(ref: ObjectRef): string {
    return join(this.folder, REMOVING_FOLDER, `${ref.slice('sha256:'.length)}.json`);
  }

  /**
   * The object's text. A pruner may hold it aside for a moment and then put it back, so a
   * reader that misses it looks there, and then in its place once more.
   */
  private async readText(ref: ObjectRef): Promise<string> {
    const { path } = this.location(ref);
    for (const candidate of [path, this.removingPath(ref), path]) {
      try {
        return await readFile(candidate, 'utf8');
      } catch (error) {
        if (errnoCode(error) !== 'ENOENT') throw fileFailure(error, `read object ${ref}`);
      }
    }
    throw new ObjectNotFound(ref);
  }
}

/**
 * Whether the object file at `path` is there; when it is and its put time is older than the
 * touch interval, that time is refreshed. False also when a pruner took the file away between
 * the two steps (the refresh finds no file): the caller then stores it again.
 */
function refreshIfStored(path: string): boolean {
  const stats = statSync(path, { throwIfNoEntry: false });
  if (stats === undefined) return false;
  const now = Date.now();
  if (stats.mtimeMs >= now - OBJECT_TOUCH_INTERVAL_MS) return true;
  try {
    const seconds = now / 1000;
    utimesSync(path, seconds, seconds);
    return true;
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return false;
    throw error;
  }
}
