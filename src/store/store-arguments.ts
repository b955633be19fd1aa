import { canonicalJson } from './canonical-json.js';
import { EventConflict, JobStoreError } from './store-errors.js';
import {
  DEFAULT_EVENT_PAGE_BYTES,
  DEFAULT_EVENT_PAGE_LIMIT,
  isObjectRef,
  type EventToAppend,
  type ObjectRef,
  type ReadEventsOptions,
} from './references.js';

/** Checks of the arguments both backends receive; a bad argument is a bug, never retried. */

/** An event ready to store: its JSON text and that text's size in UTF-8 bytes. */
export interface PreparedEvent {
  seq: number;
  text: string;
  /** Its canonical JSON: what "the same event" is compared by. */
  canonical: string;
  bytes: number;
}

/** Whether stored event text is the same event as a prepared one (key order aside). */
export function sameEvent(storedText: string, event: PreparedEvent): boolean {
  if (storedText === event.text) return true;
  try {
    return canonicalJson(JSON.parse(storedText)) === event.canonical;
  } catch {
    return false;
  }
}

export interface EventPageBounds {
  afterSeq: number;
  limit: number;
  maxBytes: number;
}

export function checkJobId(jobId: string): void {
  if (typeof jobId !== 'string' || jobId.length === 0) {
    throw new JobStoreError('A job id must be a non-empty string');
  }
}

export function checkRef(ref: ObjectRef): void {
  if (!isObjectRef(ref)) throw new JobStoreError(`Not an object reference: ${String(ref)}`);
}

export function checkRecordName(namespace: string, key: string): void {
  if (typeof namespace !== 'string' || namespace.length === 0) {
    throw new JobStoreError('A record namespace must be a non-empty string');
  }
  if (typeof key !== 'string' || key.length === 0) {
    throw new JobStoreError('A record key must be a non-empty string');
  }
}

/**
 * The batch in seq order, each event as JSON text. The same seq twice in one batch is
 * kept once when the contents agree and is an `EventConflict` when they do not.
 */
export function prepareEvents(jobId: string, events: readonly EventToAppend[]): PreparedEvent[] {
  checkJobId(jobId);
  const bySeq = new Map<number, PreparedEvent>();
  for (const { seq, event } of events) {
    if (!Number.isSafeInteger(seq) || seq < 1) {
      throw new JobStoreError(`An event seq must be a positive integer, not ${String(seq)}`);
    }
    // Compared as canonical JSON, kept in its own key order.
    const canonical = canonicalJson(event);
    const text = JSON.stringify(event);
    const earlier = bySeq.get(seq);
    if (earlier && earlier.canonical !== canonical) throw new EventConflict(jobId, seq);
    bySeq.set(seq, { seq, text, canonical, bytes: Buffer.byteLength(text, 'utf8') });
  }
  return [...bySeq.values()].sort((left, right) => left.seq - right.seq);
}

export function eventPageBounds(options: ReadEventsOptions = {}): EventPageBounds {
  const afterSeq = options.afterSeq ?? 0;
  const limit = options.limit ?? DEFAULT_EVENT_PAGE_LIMIT;
  const maxBytes = options.maxBytes ?? DEFAULT_EVENT_PAGE_BYTES;
  if (!Number.isSafeInteger(afterSeq) || afterSeq < 0) {
    throw new JobStoreError(`afterSeq must be a non-negative integer, not ${String(afterSeq)}`);
  }
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new JobStoreError(`limit must be a positive integer, not ${String(limit)}`);
  }
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) {
    throw new JobStoreError(`maxBytes must be a positive integer, not ${String(maxBytes)}`);
  }
  return { afterSeq, limit, maxBytes };
}
