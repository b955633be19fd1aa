import { linkSync, renameSync, statSync, unlinkSync, type Dir, type Dirent } from 'node:fs';
import { mkdir, opendir, readdir, readFile, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { sha256Hex } from '../object-ref.js';
import { checkJobId, checkRecordName, checkRef } from '../store-arguments.js';
import type { ObjectRef } from '../references.js';
import type {
  AbandonedWrites,
  RecordKey,
  RemovedObjects,
  StaleObject,
  StoreMaintenance,
} from '../store-maintenance.js';
import { errnoCode, fileFailure } from './file-errors.js';
import { isTemporaryName } from './file-writes.js';
import { REMOVING_FOLDER, type FileObjects } from './file-objects.js';
import { StoreCorruptionError } from '../store-errors.js';
import { PAUSE_PRUNE_OBJECT_ASIDE, pauseForTest } from '../../tools/test-pause.js';

const OBJECT_FOLDER = /^[0-9a-f]{2}$/;
const OBJECT_FILE = /^([0-9a-f]{64})\.json$/;
const RECORD_FILE = /^[0-9a-f]{64}\.json$/;
/**
 * How deep below each of the store's folders a write makes its temporary file: the deepest is
 * an event's, `events/<job>/<seq folder>/`.
 */
const TEMPORARY_FILE_DEPTH = 2;

/** The folders of a file store that its clean-up works on. */
export interface FileStoreFolders {
  records: string;
  events: string;
  live: string;
}

/**
 * Clean-up of the embedded store. An object is removed in three steps, none of which a writer
 * or reader can be harmed by: its file is renamed into `objects/removing/` (atomic), its time is
 * read there, and it is then deleted, or put back when a writer refreshed it before the rename
 * (rename keeps the time). A writer that refreshes after the rename finds no file and stores
 * the object again; a reader that misses the file looks in `removing/` too (`FileObjects`).
 */
export class FileMaintenance implements StoreMaintenance {
  constructor(
    private readonly objects: FileObjects,
    private readonly folders: FileStoreFolders,
  ) {}

  currentTimeMs(): Promise<number> {
    return Promise.resolve(Date.now());
  }

  async *listRecordKeys(namespace: string): AsyncIterable<RecordKey> {
    checkRecordName(namespace, '-');
    const folder = join(this.folders.records, sha256Hex(namespace));
    // Read as it is listed: a namespace's folder may hold millions of records.
    for await (const name of namesAsListed(folder)) {
      if (!RECORD_FILE.test(name)) continue;
      const path = join(folder, name);
      const key = await recordKeyIn(path);
      const stats = statSync(path, { throwIfNoEntry: false });
      if (key !== undefined && stats !== undefined) yield { key, writtenAtMs: stats.mtimeMs };
    }
  }

  async deleteRecord(namespace: string, key: string): Promise<void> {
    checkRecordName(namespace, key);
    const path = join(this.folders.records, sha256Hex(namespace), `${sha256Hex(key)}.json`);
    try {
      await unlink(path);
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT')
        throw fileFailure(error, `delete record ${namespace}/${key}`);
    }
  }

  async deleteJobStreams(jobId: string): Promise<void> {
    checkJobId(jobId);
    const name = sha256Hex(jobId);
    try {
      await rm(join(this.folders.events, name), { recursive: true, force: true });
      await rm(join(this.folders.live, name), { recursive: true, force: true });
    } catch (error) {
      throw fileFailure(error, `delete the streams of job ${jobId}`);
    }
  }

  async *listObjectsPutBefore(cutoffMs: number): AsyncIterable<readonly StaleObject[]> {
    checkCutoff(cutoffMs);
    await this.putBackHeldObjects();
    yield* this.listObjects((putAtMs) => putAtMs < cutoffMs);
  }

  async *listObjectsPutSince(cutoffMs: number): AsyncIterable<readonly StaleObject[]> {
    checkCutoff(cutoffMs);
    yield* this.listObjects((putAtMs) => putAtMs >= cutoffMs);
  }

  /** The objects whose put time passes `test`, a page per folder. */
  private async *listObjects(
    test: (putAtMs: number) => boolean,
  ): AsyncIterable<readonly StaleObject[]> {
    for (const folderName of await listFolder(this.objects.folder)) {
      if (!OBJECT_FOLDER.test(folderName)) continue;
      const folder = join(this.objects.folder, folderName);
      const page: StaleObject[] = [];
      for (const name of await listFolder(folder)) {
        const hex = OBJECT_FILE.exec(name)?.[1];
        if (hex === undefined) continue;
        const stats = statSync(join(folder, name), { throwIfNoEntry: false });
        if (stats !== undefined && test(stats.mtimeMs)) {
          page.push({ ref: `sha256:${hex}`, bytes: stats.size });
        }
      }
      if (page.length > 0) yield page;
    }
  }

  async removeObjectsPutBefore(
    refs: readonly ObjectRef[],
    cutoffMs: number,
  ): Promise<RemovedObjects> {
    checkCutoff(cutoffMs);
    refs.forEach(checkRef);
    const removed: RemovedObjects = { count: 0, bytes: 0 };
    if (refs.length === 0) return removed;
    const removing = join(this.objects.folder, REMOVING_FOLDER);
    try {
      await mkdir(removing, { recursive: true });
      for (const ref of refs) {
        const bytes = await this.removeIfPutBefore(ref, cutoffMs);
        if (bytes === undefined) continue;
        removed.count += 1;
        removed.bytes += bytes;
      }
    } catch (error) {
      throw fileFailure(error, 'remove objects');
    }
    return removed;
  }

  async removeAbandonedWrites(cutoffMs: number, remove: boolean): Promise<AbandonedWrites> {
    checkCutoff(cutoffMs);
    const found: AbandonedWrites = { count: 0, bytes: 0 };
    const { records, events, live } = this.folders;
    try {
      for (const folder of [this.objects.folder, records, events, live]) {
        await sweepTemporaryFiles(folder, TEMPORARY_FILE_DEPTH, cutoffMs, remove, found);
      }
    } catch (error) {
      throw fileFailure(error, 'remove temporary files that writers left behind');
    }
    return found;
  }

  /**
   * Puts back the objects a pruner that stopped half-way left in `removing/`, so that they are
   * judged again like any other.
   */
  private async putBackHeldObjects(): Promise<void> {
    const removing = join(this.objects.folder, REMOVING_FOLDER);
    for (const name of await listFolder(removing)) {
      const hex = OBJECT_FILE.exec(name)?.[1];
      if (hex === undefined) continue;
      const ref: ObjectRef = `sha256:${hex}`;
      const { folder, path } = this.objects.location(ref);
      try {
        await mkdir(folder, { recursive: true });
        linkSync(join(removing, name), path);
      } catch (error) {
        if (errnoCode(error) !== 'EEXIST') throw fileFailure(error, `put back object ${ref}`);
      }
      await unlink(join(removing, name)).catch(() => undefined);
    }
  }

  /** The removed object's size, or undefined when it was kept (or not there). */
  private async removeIfPutBefore(ref: ObjectRef, cutoffMs: number): Promise<number | undefined> {
    const { path } = this.objects.location(ref);
    const before = statSync(path, { throwIfNoEntry: false });
    if (before === undefined || before.mtimeMs >= cutoffMs) return undefined;
    const aside = this.objects.removingPath(ref);
    try {
      renameSync(path, aside);
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return undefined;
      throw error;
    }
    await pauseForTest(PAUSE_PRUNE_OBJECT_ASIDE);
    // Gone from aside: another pruner put it back meanwhile, and it stays.
    const held = statSync(aside, { throwIfNoEntry: false });
    if (held === undefined) return undefined;
    if (held.mtimeMs < cutoffMs) return unlinkQuietly(aside) ? held.size : undefined;
    // Refreshed by a put before the rename: back into place, unless a put stored it anew.
    try {
      linkSync(aside, path);
    } catch (error) {
      if (errnoCode(error) !== 'EEXIST' && errnoCode(error) !== 'ENOENT') throw error;
    }
    unlinkQuietly(aside);
    return undefined;
  }
}

/**
 * Counts into `found` the temporary files in `folder`, and in its folders down to `depth`
 * levels, last written before `cutoffMs`, and removes them when `remove`. A file that is gone
 * by the time it is removed (its writer was alive after all, and finished) is not counted.
 */
async function sweepTemporaryFiles(
  folder: string,
  depth: number,
  cutoffMs: number,
  remove: boolean,
  found: AbandonedWrites,
): Promise<void> {
  for (const entry of await listEntries(folder)) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      if (depth > 0) await sweepTemporaryFiles(path, depth - 1, cutoffMs, remove, found);
      continue;
    }
    if (!entry.isFile() || !isTemporaryName(entry.name)) continue;
    const stats = statSync(path, { throwIfNoEntry: false });
    if (stats === undefined || stats.mtimeMs >= cutoffMs) continue;
    if (remove && !unlinkQuietly(path)) continue;
    found.count += 1;
    // A burst's file linked to its events' names already: removing its temporary name frees
    // nothing.
    if (stats.nlink === 1) found.bytes += stats.size;
  }
}

/** Removes `path`; false when it was gone already (another pruner put it back). */
function unlinkQuietly(path: string): boolean {
  try {
    unlinkSync(path);
    return true;
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw error;
    return false;
  }
}

async function listFolder(folder: string): Promise<string[]> {
  return (await listEntries(folder)).map((entry) => entry.name);
}

/**
 * The names in `folder`, read from the directory as they are asked for; none when it is
 * missing.
 */
async function* namesAsListed(folder: string): AsyncIterable<string> {
  let directory: Dir;
  try {
    directory = await opendir(folder);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return;
    throw fileFailure(error, `list ${folder}`);
  }
  try {
    // Closes the directory when the loop ends, however it ends.
    for await (const entry of directory) yield entry.name;
  } catch (error) {
    throw fileFailure(error, `list ${folder}`);
  }
}

/** The entries of `folder`, none when it is missing. */
async function listEntries(folder: string): Promise<Dirent[]> {
  try {
    return await readdir(folder, { withFileTypes: true });
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return [];
    throw fileFailure(error, `list ${folder}`);
  }
}

/** The key a record file holds; undefined for one gone or emptied by a power loss. */
async function recordKeyIn(path: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw fileFailure(error, `read ${path}`);
  }
  if (text.length === 0) return undefined;
  try {
    const key = (JSON.parse(text) as { key?: unknown }).key;
    return typeof key === 'string' ? key : undefined;
  } catch (error) {
    throw new StoreCorruptionError(`Record file ${path} is not JSON`, { cause: error });
  }
}

function checkCutoff(cutoffMs: number): void {
  if (!Number.isFinite(cutoffMs))
    throw new RangeError(`A cutoff must be a time in ms, not ${cutoffMs}`);
}
