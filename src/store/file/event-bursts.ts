import type { PreparedEvent } from '../store-arguments.js';
import { consecutiveSlices } from '../consecutive-slices.js';
import { StoreCorruptionError } from '../store-errors.js';

/**
 * A burst file holds consecutive events: a header line `#events <first seq>`, then each event's
 * JSON text on a line of its own (JSON text has no raw line breaks). A plain event file is one
 * JSON text, which never starts with `#`, so both read the same way.
 */
const BURST_HEADER = '#events ';

/**
 * The most bytes of events one burst file holds. Every seq of a burst is a name for the same
 * file, so a reader of one event reads the whole burst: the bound keeps that cheap, and bigger
 * events go in files of their own.
 */
export const BURST_MAX_BYTES = 16 * 1024;

/**
 * Splits events (ascending seqs) into runs written as one file each: consecutive seqs, in one
 * seq folder (`folderOf`), at most `BURST_MAX_BYTES` together. An event over the bound is a run
 * of its own.
 */
export function burstsOf(
  events: readonly PreparedEvent[],
  folderOf: (seq: number) => string,
): PreparedEvent[][] {
  return consecutiveSlices(events, (event, burst, bytes) => {
    const last = burst[burst.length - 1] as PreparedEvent;
    return (
      event.seq === last.seq + 1 &&
      folderOf(event.seq) === folderOf(last.seq) &&
      bytes + event.bytes <= BURST_MAX_BYTES
    );
  });
}

/** The file text of a single event, or of a burst when the events are several. */
export function eventFileText(events: readonly PreparedEvent[]): string {
  const [first, ...others] = events;
  if (!first) throw new Error('A file holds at least one event');
  if (others.length === 0) return first.text;
  return `${BURST_HEADER}${first.seq}\n${events.map((event) => event.text).join('\n')}`;
}

/**
 * The JSON text of event `seq` in the text of the file stored under its name: the whole text
 * of a plain event file, the seq's line of a burst. A burst without that seq is corrupt.
 */
export function storedEventText(fileText: string, seq: number, jobId: string): string {
  if (!fileText.startsWith(BURST_HEADER)) return fileText;
  const headerEnd = fileText.indexOf('\n');
  const first = Number(
    fileText.slice(BURST_HEADER.length, headerEnd === -1 ? undefined : headerEnd),
  );
  let start = headerEnd + 1;
  if (headerEnd !== -1 && Number.isSafeInteger(first) && seq >= first) {
    for (let line = first; line < seq && start > 0; line += 1) {
      start = fileText.indexOf('\n', start) + 1;
    }
    if (start > 0) {
      const end = fileText.indexOf('\n', start);
      return fileText.slice(start, end === -1 ? undefined : end);
    }
  }
  throw new StoreCorruptionError(`Event ${seq} of job ${jobId} is missing from its burst file`);
}
