import { link, mkdir, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { canonicalJson } from '../canonical-json.js';
import { sha256Hex } from '../object-ref.js';
import { checkJobId, eventPageBounds } from '../store-arguments.js';
import { JobStoreError } from '../store-errors.js';
import type { JsonValue, ReadEventsOptions, StoredEvent } from '../references.js';
import { errnoCode, fileFailure } from './file-errors.js';
import { removeQuietly, writeTemporaryFile } from './file-writes.js';

const LIVE_FILE = /^(\d{16})\.json$/;
/** Holds the highest seq dropped, so that a stream emptied by a drop goes on counting. */
const FLOOR_FILE = 'floor';

/**
 * Live events as `live/<sha256 of job id>/<seq, 16 digits>.json`. A seq is claimed by
 * hard-linking a written temporary file to its name: `link` fails when the name exists, so of
 * two writers trying one seq exactly one gets it and the other tries the next one. A seq is
 * thus visible as soon as it is claimed, and only after the one before it was (no gap a
 * follower could pass). One flat folder per job: the stream is compacted as messages end.
 * Files are not flushed to disk: live events are best effort, and must be cheap.
 */
export class FileLiveEvents {
  constructor(private readonly folder: string) {}

  async append(jobId: string, events: readonly unknown[]): Promise<number[]> {
    checkJobId(jobId);
    const texts = events.map((event) => {
      canonicalJson(event); // rejects what JSON cannot carry, like the event stream does
      return JSON.stringify(event);
    });
    if (texts.length === 0) return [];
    const jobFolder = this.jobFolder(jobId);
    try {
      await mkdir(jobFolder, { recursive: true });
      let next = (await highestSeq(jobFolder)) + 1;
      const seqs: number[] = [];
      for (const text of texts) {
        const temporary = await writeTemporaryFile(jobFolder, text, false);
        try {
          next = await claimSeq(jobFolder, temporary, next);
        } finally {
          await removeQuietly(temporary);
        }
        seqs.push(next);
        next += 1;
      }
      return seqs;
    } catch (error) {
      throw fileFailure(error, `append live events of job ${jobId}`);
    }
  }

  async read(jobId: string, options?: ReadEventsOptions): Promise<StoredEvent[]> {
    checkJobId(jobId);
    const { afterSeq, limit, maxBytes } = eventPageBounds(options);
    const jobFolder = this.jobFolder(jobId);
    try {
      const seqs = (await listSeqs(jobFolder)).filter((seq) => seq > afterSeq);
      const page: StoredEvent[] = [];
      let bytes = 0;
      for (const seq of seqs) {
        let text: string;
        try {
          text = await readFile(livePath(jobFolder, seq), 'utf8');
        } catch (error) {
          if (errnoCode(error) === 'ENOENT') continue; // dropped since the listing
          throw error;
        }
        const size = Buffer.byteLength(text, 'utf8');
        if (page.length > 0 && bytes + size > maxBytes) break;
        page.push({ seq, event: JSON.parse(text) as JsonValue });
        bytes += size;
        if (page.length >= limit) break;
      }
      return page;
    } catch (error) {
      throw fileFailure(error, `read live events of job ${jobId}`);
    }
  }

  async drop(jobId: string, upToSeq: number): Promise<void> {
    checkJobId(jobId);
    if (!Number.isSafeInteger(upToSeq) || upToSeq < 0) {
      throw new JobStoreError(`upToSeq must be a non-negative integer, not ${String(upToSeq)}`);
    }
    const jobFolder = this.jobFolder(jobId);
    try {
      const seqs = (await listSeqs(jobFolder)).filter((seq) => seq <= upToSeq);
      if (seqs.length === 0) return;
      // The floor first: a stream emptied by this drop must not count from 1 again.
      const floor = Math.max(await readFloor(jobFolder), seqs.at(-1) as number);
      const temporary = await writeTemporaryFile(jobFolder, String(floor), false);
      await rename(temporary, join(jobFolder, FLOOR_FILE));
      await Promise.all(
        seqs.map((seq) =>
          unlink(livePath(jobFolder, seq)).catch((error: unknown) => {
            if (errnoCode(error) !== 'ENOENT') throw error;
          }),
        ),
      );
    } catch (error) {
      throw fileFailure(error, `drop live events of job ${jobId}`);
    }
  }

  private jobFolder(jobId: string): string {
    return join(this.folder, sha256Hex(jobId));
  }
}

/** Links `temporary` to the first free seq from `first` on and returns that seq. */
async function claimSeq(jobFolder: string, temporary: string, first: number): Promise<number> {
  for (let seq = first; ; seq += 1) {
    try {
      await link(temporary, livePath(jobFolder, seq));
      return seq;
    } catch (error) {
      if (errnoCode(error) !== 'EEXIST') throw error;
    }
  }
}

async function highestSeq(jobFolder: string): Promise<number> {
  const listed = (await listSeqs(jobFolder)).at(-1) ?? 0;
  return Math.max(listed, await readFloor(jobFolder));
}

async function readFloor(jobFolder: string): Promise<number> {
  try {
    const value = Number(await readFile(join(jobFolder, FLOOR_FILE), 'utf8'));
    return Number.isSafeInteger(value) ? value : 0;
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return 0;
    throw error;
  }
}

async function listSeqs(folder: string): Promise<number[]> {
  let names: string[];
  try {
    names = await readdir(folder);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return [];
    throw error;
  }
  const seqs: number[] = [];
  for (const name of names) {
    const match = LIVE_FILE.exec(name);
    if (match) seqs.push(Number(match[1]));
  }
  return seqs.sort((left, right) => left - right);
}

function livePath(jobFolder: string, seq: number): string {
  return join(jobFolder, `${String(seq).padStart(16, '0')}.json`);
}
