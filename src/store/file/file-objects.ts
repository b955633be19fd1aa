import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeObject, textMatchesRef } from '../object-ref.js';
import { checkRef } from '../store-arguments.js';
import { ObjectNotFound, StoreCorruptionError } from '../store-errors.js';
import type { JsonValue, ObjectRef } from '../references.js';
import { errnoCode, fileFailure } from './file-errors.js';
import { fileExistsNow, replaceFile } from './file-writes.js';
import { KnownFolders } from './known-folders.js';

/**
 * Objects as `objects/<first 2 hex>/<64 hex>.json`, each holding the value's own JSON (see `encodeObject`).
 * A write goes to a temporary file in the same folder, flushed, then renamed into place:
 * rename is atomic, so a crash leaves no half object, and two writers of the same value
 * rename the same bytes over each other, which is harmless.
 */
export class FileObjects {
  private readonly folders = new KnownFolders();

  constructor(
    private readonly folder: string,
    private readonly flush: boolean,
  ) {}

  async put(value: unknown): Promise<ObjectRef> {
    const { ref, text } = encodeObject(value);
    const { folder, path } = this.location(ref);
    try {
      if (fileExistsNow(path)) return ref;
      await this.folders.withFolder(folder, () => replaceFile(folder, path, text, this.flush));
      return ref;
    } catch (error) {
      throw fileFailure(error, `store object ${ref}`);
    }
  }

  async get(ref: ObjectRef): Promise<JsonValue> {
    checkRef(ref);
    let text: string;
    try {
      text = await readFile(this.location(ref).path, 'utf8');
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') throw new ObjectNotFound(ref);
      throw fileFailure(error, `read object ${ref}`);
    }
    // A file changed on disk (bit rot, a hand edit, a torn write) must not pass for data.
    if (!textMatchesRef(ref, text)) {
      throw new StoreCorruptionError(`Object ${ref} on disk does not match its hash`);
    }
    return JSON.parse(text) as JsonValue;
  }

  private location(ref: ObjectRef): { folder: string; path: string } {
    const hex = ref.slice('sha256:'.length);
    const folder = join(this.folder, hex.slice(0, 2));
    return { folder, path: join(folder, `${hex}.json`) };
  }
}
