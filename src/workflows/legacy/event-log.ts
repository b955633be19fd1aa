import type { AgentEvent } from '../../core/index.js';
import { boundedPage } from '../bounded-page.js';
import type { SequencedEvent } from './job-types.js';

/** The job's append-only, numbered event log; numbering goes on across continue-as-new. */
export class EventLog {
  constructor(private readonly events: SequencedEvent[] = []) {}

  append(event: AgentEvent): void {
    this.events.push({ ...event, seq: this.lastSeq + 1 });
  }

  get lastSeq(): number {
    return this.events.at(-1)?.seq ?? 0;
  }

  /**
   * Events with a sequence number above `afterSeq`, at most `limit` of them, and fewer when the
   * page passes ~1 MiB of JSON (see `boundedPage`). A short page is therefore not the end of the
   * log: readers go on until a page is empty.
   */
  after(afterSeq: number, limit = 1000): SequencedEvent[] {
    const start = this.events.findIndex((event) => event.seq > afterSeq);
    return start < 0 ? [] : boundedPage(this.events, start, limit);
  }

  all(): SequencedEvent[] {
    return this.events;
  }
}
