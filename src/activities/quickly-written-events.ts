import { createHash } from 'node:crypto';

/** Jobs remembered at most; past it the oldest is forgotten (its durable write reads back). */
const MOST_JOBS = 2_000;

interface SeqEvent {
  seq: number;
  event: unknown;
}

/**
 * What this process's quick (sink) writes stored, per job, until a durable write repeats it:
 * the durable write leaves out the events it would store again unchanged, instead of reading
 * each back from the store to compare (which cost more than writing them had). Only a
 * fingerprint of each event is kept. A job this process knows nothing about (a worker started
 * since, a job taken over from another worker) is compared in the store as before.
 */
export class QuicklyWrittenEvents {
  private readonly jobs = new Map<string, Map<number, string>>();

  /** After a quick write of `events` succeeded. */
  remember(jobId: string, events: readonly SeqEvent[]): void {
    let seqs = this.jobs.get(jobId);
    if (!seqs) {
      if (this.jobs.size >= MOST_JOBS) {
        const oldest = this.jobs.keys().next().value;
        if (oldest !== undefined) this.jobs.delete(oldest);
      }
      seqs = new Map();
      this.jobs.set(jobId, seqs);
    }
    for (const { seq, event } of events) seqs.set(seq, fingerprint(event));
  }

  /** `events` without those a quick write stored with the same content. */
  notYetWritten<T extends SeqEvent>(jobId: string, events: readonly T[]): T[] {
    const seqs = this.jobs.get(jobId);
    if (!seqs) return [...events];
    return events.filter(({ seq, event }) => seqs.get(seq) !== fingerprint(event));
  }

  /** After a durable write up to `lastSeq`: those events need no remembering any more. */
  forgetUpTo(jobId: string, lastSeq: number): void {
    const seqs = this.jobs.get(jobId);
    if (!seqs) return;
    for (const seq of seqs.keys()) if (seq <= lastSeq) seqs.delete(seq);
    if (seqs.size === 0) this.jobs.delete(jobId);
  }
}

function fingerprint(event: unknown): string {
  // 128 bits: a collision would have to be between two events of one job's same seq.
  return createHash('sha256').update(JSON.stringify(event)).digest('base64').slice(0, 22);
}
