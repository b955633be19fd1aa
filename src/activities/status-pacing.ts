import type { JobStatus } from '../workflows/job-types.js';

/** What the pacing needs of a write: its job and, when it carries one, its status. */
interface StatusWrite {
  jobId: string;
  status?: JobStatus;
}

interface JobPacing {
  /** When the job's status was last written, and its phase then (`shownPhase`). */
  writtenAt: number;
  phase: string;
  /** A status held back, written when the timer fires unless a later one is written first. */
  held?: { timer: ReturnType<typeof setTimeout> };
}

/** The phase as readers tell it apart: a turn's model and tools phases are both running. */
function shownPhase(phase: JobStatus['phase']): string {
  return phase === 'model' || phase === 'tools' ? 'running' : phase;
}

/** Above this many jobs, entries that no longer hold anything back are dropped. */
const PRUNE_ABOVE_JOBS = 1000;

/**
 * Paces the status records of a job's quick writes: each burst of events carries the job's
 * status, and a turn makes two or three bursts, but readers (`dar status`, the console) need
 * the counters a few times a minute, not every burst. A status whose phase changed is written
 * at once (a turn's flips between `model` and `tools` count as no change); one that comes less
 * than `intervalMs` after the last written is held back and written when the interval has
 * passed, unless a later write carries a status first. So the stored status is at most
 * `intervalMs` behind the job, and at once for a new phase (waiting, approval, done). Durable
 * writes are not paced; they only tell the pacing (`written`).
 */
export class StatusPacing {
  private readonly jobs = new Map<string, JobPacing>();

  constructor(
    private readonly intervalMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The write to make now: `progress` as it is, or without its status when that is held back;
   * `writeLater` then gets the held status's write once the interval has passed.
   */
  pace<Write extends StatusWrite>(progress: Write, writeLater: (held: Write) => void): Write {
    const { jobId, status } = progress;
    if (!status) return progress;
    const pacing = this.jobs.get(jobId);
    const now = this.now();
    const changed = pacing?.phase !== shownPhase(status.phase);
    if (!pacing || changed || now - pacing.writtenAt >= this.intervalMs) {
      this.written(jobId, status);
      return progress;
    }
    if (pacing.held) clearTimeout(pacing.held.timer);
    const timer = setTimeout(
      () => {
        if (this.jobs.get(jobId)?.held?.timer !== timer) return;
        this.written(jobId, status);
        writeLater({ ...progress, events: [] });
      },
      Math.max(0, pacing.writtenAt + this.intervalMs - now),
    );
    // A held status never keeps the process alive: the job's next durable write carries one.
    timer.unref();
    pacing.held = { timer };
    const withoutStatus = { ...progress };
    delete withoutStatus.status;
    return withoutStatus;
  }

  /** A write with `status` is being made for the job: nothing is held back any more. */
  written(jobId: string, status: JobStatus): void {
    const pacing = this.jobs.get(jobId);
    if (pacing?.held) clearTimeout(pacing.held.timer);
    if (status.phase === 'done') {
      this.jobs.delete(jobId);
      return;
    }
    this.jobs.set(jobId, { writtenAt: this.now(), phase: shownPhase(status.phase) });
    if (this.jobs.size > PRUNE_ABOVE_JOBS) this.prune();
  }

  /** Drops the jobs whose next status would be written at once anyway. */
  private prune(): void {
    const now = this.now();
    for (const [jobId, pacing] of this.jobs) {
      if (!pacing.held && now - pacing.writtenAt >= this.intervalMs) this.jobs.delete(jobId);
    }
  }
}
