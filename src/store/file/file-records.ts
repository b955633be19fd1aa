import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { canonicalJson } from '../canonical-json.js';
import { sha256Hex } from '../object-ref.js';
import { checkRecordName } from '../store-arguments.js';
import { StoreCorruptionError } from '../store-errors.js';
import type { JsonValue } from '../references.js';
import { errnoCode, fileFailure } from './file-errors.js';
import { replaceFile } from './file-writes.js';
import { KnownFolders } from './known-folders.js';

/**
 * Records as `records/<sha256 of namespace>/<sha256 of key>.json` (any string is a safe file
 * name that way), holding `{ namespace, key, value }`. Written aside and renamed over, so a
 * reader sees the old record or the new one, and the last rename wins. A record written
 * without a flush (`durable` false) may be empty after a power loss (its rename reached the
 * disk, its content not): an empty file reads as no record.
 */
export class FileRecords {
  private readonly folders = new KnownFolders();

  constructor(
    private readonly folder: string,
    private readonly flush: boolean,
  ) {}

  async put(namespace: string, key: string, value: unknown, durable: boolean): Promise<void> {
    checkRecordName(namespace, key);
    const text = canonicalJson({ namespace, key, value });
    const { folder, path } = this.location(namespace, key);
    const flush = this.flush && durable;
    try {
      await this.folders.withFolder(folder, () => replaceFile(folder, path, text, flush));
    } catch (error) {
      throw fileFailure(error, `store record ${namespace}/${key}`);
    }
  }

  async get(namespace: string, key: string): Promise<JsonValue | undefined> {
    checkRecordName(namespace, key);
    let text: string;
    try {
      text = await readFile(this.location(namespace, key).path, 'utf8');
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return undefined;
      throw fileFailure(error, `read record ${namespace}/${key}`);
    }
    if (text.length === 0) return undefined;
    try {
      return (JSON.parse(text) as { value: JsonValue }).value;
    } catch (error) {
      throw new StoreCorruptionError(`Record ${namespace}/${key} on disk is not JSON`, {
        cause: error,
      });
    }
  }

  private location(namespace: string, key: string): { folder: string; path: string } {
    const folder = join(this.folder, sha256Hex(namespace));
    return { folder, path: join(folder, `${sha256Hex(key)}.json`) };
  }
}
