import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mapWithConcurrency } from '../concurrency.js';
import { sha256Hex } from '../object-ref.js';
import {
  checkJobId,
  eventPageBounds,
  prepareEvents,
  sameEvent,
  type PreparedEvent,
} from '../store-arguments.js';
import { EventConflict, StoreCorruptionError } from '../store-errors.js';
import type {
  AppendEventsOptions,
  EventToAppend,
  JsonValue,
  ReadEventsOptions,
  StoredEvent,
} from '../references.js';
import { errnoCode, fileFailure } from './file-errors.js';
import { linkNow, removeQuietly, replaceFile, writeTemporaryFile } from './file-writes.js';
import { burstsOf, eventFileText, storedEventText } from './event-bursts.js';
import { KnownFolders } from './known-folders.js';

/** Seqs per folder: a folder stays small enough to list in well under a millisecond. */
const SEQS_PER_FOLDER = 1000;
const EVENT_FILE = /^(\d{16})\.json$/;
const SEQ_FOLDER = /^\d{13}$/;
/** Files read at once while filling a page. */
const READ_AHEAD = 64;

/**
 * Events as `events/<sha256 of job id>/<seq / 1000, 13 digits>/<seq, 16 digits>.json`, one
 * name per event. The file under a name holds that event's JSON, or a burst of consecutive
 * events including it (see `event-bursts.ts`): the events of one append are written to one
 * flushed temporary file, which is then hard-linked to each of their names, in seq order.
 *
 * Why one name per seq: `link` is atomic and fails when the name exists, so (a) a crash leaves
 * a whole event or none, never half of one, (b) of two writers of one seq exactly one wins, and
 * the other compares contents (same: a retry, nothing to do; different: `EventConflict`),
 * also across processes, without locks. (With `replace`, a differing event is written alone and
 * renamed over instead: also atomic, and the last writer wins.) An append-only log file would
 * need a lock and a repair of torn tails. A burst costs one file (one write, one flush) for its
 * events instead of one each. The seqs are grouped by thousands, so that paging lists one small
 * folder rather than a folder of tens of thousands of files; a gap in the seqs costs nothing.
 */
export class FileEvents {
  private readonly folders = new KnownFolders();

  constructor(
    private readonly folder: string,
    private readonly flush: boolean,
  ) {}

  async append(
    jobId: string,
    events: readonly EventToAppend[],
    options: AppendEventsOptions = {},
  ): Promise<void> {
    const prepared = prepareEvents(jobId, events);
    const jobFolder = this.jobFolder(jobId);
    try {
      await this.appendPrepared(jobId, jobFolder, prepared, options);
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT') throw fileFailure(error, `append events of job ${jobId}`);
      // A folder removed behind the store's back: made again, and the append run once more.
      this.folders.forgetUnder(jobFolder);
      try {
        await this.appendPrepared(jobId, jobFolder, prepared, options);
      } catch (again) {
        throw fileFailure(again, `append events of job ${jobId}`);
      }
    }
  }

  private async appendPrepared(
    jobId: string,
    jobFolder: string,
    prepared: PreparedEvent[],
    options: AppendEventsOptions,
  ): Promise<void> {
    for (const folder of new Set(prepared.map((event) => seqFolder(jobFolder, event.seq)))) {
      await this.folders.ensure(folder);
    }
    // Flush the files in parallel, then link them in seq order, so that a follower never
    // sees a later event before an earlier one of the same batch. An event already stored (a
    // retry) is found by its link failing, and compared then: no listing before each append.
    const bursts = burstsOf(prepared, (seq) => seqFolder(jobFolder, seq));
    const temporaries = await mapWithConcurrency(bursts, 16, (burst) =>
      writeTemporaryFile(
        seqFolder(jobFolder, burst[0]?.seq ?? 0),
        eventFileText(burst),
        this.flush,
      ),
    );
    try {
      for (const [index, burst] of bursts.entries()) {
        const temporary = temporaries[index] as string;
        for (const event of burst) {
          await this.linkOrCompare(jobId, event, temporary, jobFolder, options);
        }
      }
    } finally {
      await Promise.all(temporaries.map(removeQuietly));
    }
  }

  async read(jobId: string, options?: ReadEventsOptions): Promise<StoredEvent[]> {
    checkJobId(jobId);
    const { afterSeq, limit, maxBytes } = eventPageBounds(options);
    const jobFolder = this.jobFolder(jobId);
    const page: StoredEvent[] = [];
    let bytes = 0;
    try {
      const firstFolder = Math.floor((afterSeq + 1) / SEQS_PER_FOLDER);
      for (const folderNumber of await listSeqFolders(jobFolder)) {
        if (folderNumber < firstFolder) continue;
        const seqs = (await listSeqs(join(jobFolder, folderName(folderNumber)))).filter(
          (seq) => seq > afterSeq,
        );
        for (let start = 0; start < seqs.length; start += READ_AHEAD) {
          const batch = seqs.slice(start, start + Math.min(READ_AHEAD, limit - page.length));
          const texts = await Promise.all(
            batch.map((seq) => readFile(eventPath(jobFolder, seq), 'utf8')),
          );
          for (const [index, fileText] of texts.entries()) {
            const seq = batch[index] as number;
            const text = storedEventText(fileText, seq, jobId);
            const size = Buffer.byteLength(text, 'utf8');
            if (page.length > 0 && bytes + size > maxBytes) return page;
            page.push({ seq, event: parseEvent(text, jobId, seq) });
            bytes += size;
            if (page.length >= limit) return page;
          }
        }
      }
      return page;
    } catch (error) {
      throw fileFailure(error, `read events of job ${jobId}`);
    }
  }

  async lastSeq(jobId: string): Promise<number> {
    checkJobId(jobId);
    const jobFolder = this.jobFolder(jobId);
    try {
      for (const folderNumber of (await listSeqFolders(jobFolder)).reverse()) {
        const seqs = await listSeqs(join(jobFolder, folderName(folderNumber)));
        const last = seqs.at(-1);
        if (last !== undefined) return last;
      }
      return 0;
    } catch (error) {
      throw fileFailure(error, `read the last event of job ${jobId}`);
    }
  }

  private jobFolder(jobId: string): string {
    return join(this.folder, sha256Hex(jobId));
  }

  private async linkOrCompare(
    jobId: string,
    event: PreparedEvent,
    temporary: string,
    jobFolder: string,
    options: AppendEventsOptions,
  ): Promise<void> {
    const path = eventPath(jobFolder, event.seq);
    try {
      linkNow(temporary, path);
    } catch (error) {
      if (errnoCode(error) !== 'EEXIST') throw error;
      // Another writer got there first (a retry running beside its first attempt).
      if (sameEvent(await readEventText(jobId, jobFolder, event.seq), event)) return;
      if (!options.replace) throw new EventConflict(jobId, event.seq);
      // Written alone: the temporary file may hold the burst's other events too.
      await replaceFile(seqFolder(jobFolder, event.seq), path, event.text, this.flush);
    }
  }
}

/** The JSON text of a stored event (its file's text, or its line of a burst). */
async function readEventText(jobId: string, jobFolder: string, seq: number): Promise<string> {
  return storedEventText(await readFile(eventPath(jobFolder, seq), 'utf8'), seq, jobId);
}

function parseEvent(text: string, jobId: string, seq: number): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    throw new StoreCorruptionError(`Event ${seq} of job ${jobId} on disk is not JSON`, {
      cause: error,
    });
  }
}

/** The seq folders of a job, ascending (none for a job without events). */
async function listSeqFolders(jobFolder: string): Promise<number[]> {
  return (await listNames(jobFolder))
    .filter((name) => SEQ_FOLDER.test(name))
    .map(Number)
    .sort((left, right) => left - right);
}

/** The seqs stored in one folder, ascending; temporary files are skipped. */
async function listSeqs(folder: string): Promise<number[]> {
  const seqs: number[] = [];
  for (const name of await listNames(folder)) {
    const match = EVENT_FILE.exec(name);
    if (match) seqs.push(Number(match[1]));
  }
  return seqs.sort((left, right) => left - right);
}

async function listNames(folder: string): Promise<string[]> {
  try {
    return await readdir(folder);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return [];
    throw error;
  }
}

function folderName(folderNumber: number): string {
  return String(folderNumber).padStart(13, '0');
}

function seqFolder(jobFolder: string, seq: number): string {
  return join(jobFolder, folderName(Math.floor(seq / SEQS_PER_FOLDER)));
}

function eventPath(jobFolder: string, seq: number): string {
  return join(seqFolder(jobFolder, seq), `${String(seq).padStart(16, '0')}.json`);
}
