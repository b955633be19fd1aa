import { configuredApiKeys } from '../providers/api-keys.js';
import { scrubJson } from '../providers/secret-scrub.js';
import type { LiveEventStore } from '../store/live-events.js';
import type { LiveEvent } from './live-events.js';

/** Characters of one tool update's text; more output in one batch keeps its end. */
export const TOOL_UPDATE_CHARACTERS = 8_000;
/** Characters waiting for a slow store; past this the waiting events are given up. */
const MOST_QUEUED_CHARACTERS = 1_000_000;
/**
 * Characters one attempt writes at the full pace. Past them it writes once every
 * {@link SLOW_INTERVAL_MS}: a tool's output (joined, so at most the last
 * {@link TOOL_UPDATE_CHARACTERS} of each interval) keeps showing its progress, but a command that
 * prints without pause for its hour (`yes`, a verbose build) no longer writes megabytes a minute
 * to the store, where they stay until the next model call ends.
 */
export const FULL_PACE_CHARACTERS = 1_000_000;
/** The least time between two writes of an attempt past {@link FULL_PACE_CHARACTERS}. */
export const SLOW_INTERVAL_MS = 5_000;

export interface LivePublisherOptions {
  store: LiveEventStore;
  jobId: string;
  /** Least time between two writes (default 50 ms): a fast stream costs a write per interval. */
  intervalMs?: number;
  /** Write at once when this many characters wait (default 4000). */
  flushCharacters?: number;
  /** Least time between two writes past `FULL_PACE_CHARACTERS` (default 5 s). */
  slowIntervalMs?: number;
  /** Hears of the first failed write (later ones are counted only). Must not throw. */
  onFailure?: (error: unknown) => void;
  /**
   * Rewrites a batch just before it is written (the model call removes configured keys, R25).
   * Must not throw.
   */
  scrub?: (events: LiveEvent[]) => LiveEvent[];
}

/**
 * Writes one activity attempt's live events to the store, batched: a write at once when none
 * was made for `intervalMs`, else at the end of the interval (or when `flushCharacters` wait),
 * one write at a time, in order. Adjacent deltas of one content block (or output of one tool
 * call) are joined into one event. Best effort: a failed write is reported and forgotten,
 * never thrown; the job's own events carry the final message.
 */
export class LivePublisher {
  /** The seq of the first event this publisher stored, once one is. */
  firstSeq: number | undefined;
  /** Events given up (failed writes, a store too slow to keep up). */
  lost = 0;
  private queue: LiveEvent[] = [];
  private queuedCharacters = 0;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private lastWriteAt = 0;
  private failed = false;
  private readonly intervalMs: number;
  private readonly flushCharacters: number;
  private writtenCharacters = 0;
  private readonly slowIntervalMs: number;

  constructor(private readonly options: LivePublisherOptions) {
    this.intervalMs = options.intervalMs ?? 50;
    this.flushCharacters = options.flushCharacters ?? 4_000;
    this.slowIntervalMs = options.slowIntervalMs ?? SLOW_INTERVAL_MS;
  }

  /** Past the full pace's characters: one write per slow interval. */
  private get slow(): boolean {
    return this.writtenCharacters >= FULL_PACE_CHARACTERS;
  }

  /** Queues an event. Returns at once; never throws. */
  publish(event: LiveEvent): void {
    const size = sizeOf(event);
    if (!this.join(event)) this.queue.push(event);
    // Slow, joined tool output is bounded as it joins: count what waits, not what came.
    this.queuedCharacters = this.slow
      ? this.queue.reduce((sum, queued) => sum + sizeOf(queued), 0)
      : this.queuedCharacters + size;
    if (this.queuedCharacters > MOST_QUEUED_CHARACTERS) {
      this.lost += this.queue.length;
      this.queue = [];
      this.queuedCharacters = 0;
      return;
    }
    this.schedule();
  }

  /** Writes what waits and waits for it, at most `timeoutMs`; never rejects. */
  async close(timeoutMs = 1_000): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const deadline = Date.now() + timeoutMs;
    while ((this.queue.length > 0 || this.writing) && Date.now() < deadline) {
      if (!this.writing) this.write();
      let expired: NodeJS.Timeout | undefined;
      await Promise.race([
        this.writing,
        new Promise((resolve) => (expired = setTimeout(resolve, deadline - Date.now()))),
      ]);
      clearTimeout(expired);
    }
  }

  private schedule(): void {
    if (this.writing || this.timer) return;
    const slow = this.slow;
    const wait = (slow ? this.slowIntervalMs : this.intervalMs) - (Date.now() - this.lastWriteAt);
    if (wait <= 0 || (!slow && this.queuedCharacters >= this.flushCharacters)) {
      this.write();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.write();
    }, wait);
  }

  private write(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.writing || this.queue.length === 0) return;
    const events = this.options.scrub ? this.options.scrub(this.queue) : this.queue;
    this.queue = [];
    this.queuedCharacters = 0;
    this.lastWriteAt = Date.now();
    this.writtenCharacters += events.reduce((sum, event) => sum + sizeOf(event), 0);
    this.writing = this.options.store
      .appendLiveEvents(this.options.jobId, events)
      .then((seqs) => {
        this.firstSeq ??= seqs[0];
      })
      .catch((error: unknown) => {
        this.lost += events.length;
        if (this.failed) return;
        this.failed = true;
        try {
          this.options.onFailure?.(error);
        } catch {
          // A reporter's failure must not reach the model call either.
        }
      })
      .finally(() => {
        this.writing = undefined;
        if (this.queue.length > 0) this.schedule();
      });
  }

  /** Adds `event` to the last queued one when both are deltas of the same thing. */
  private join(event: LiveEvent): boolean {
    const last = this.queue.at(-1);
    if (!last) return false;
    if (event.type === 'message_update' && last.type === 'message_update') {
      const next = event.assistantMessageEvent;
      const previous = last.assistantMessageEvent;
      if (
        !('delta' in next) ||
        !('delta' in previous) ||
        next.type !== previous.type ||
        next.contentIndex !== previous.contentIndex ||
        event.callIndex !== last.callIndex ||
        event.attempt !== last.attempt
      ) {
        return false;
      }
      previous.delta += next.delta;
      return true;
    }
    if (
      event.type === 'tool_execution_update' &&
      last.type === 'tool_execution_update' &&
      event.toolCallId === last.toolCallId &&
      event.attempt === last.attempt
    ) {
      const previous = last.partialResult.content[0];
      const next = event.partialResult.content[0];
      if (!previous || !next || last.whole !== event.whole) return false;
      // A whole result so far replaces the one before it; new output is added to it.
      previous.text = event.whole ? next.text : boundedTail(previous.text + next.text);
      return true;
    }
    return false;
  }
}

/**
 * A batch without any configured API key (R25), as the final message is stored. A key cut in
 * two by a batch boundary is not caught: the provider's events come as the provider sends them.
 */
export function withoutKeys(events: LiveEvent[]): LiveEvent[] {
  return scrubJson(events, configuredApiKeys());
}

/** The end of `text`, at most `TOOL_UPDATE_CHARACTERS`, saying how much was skipped. */
export function boundedTail(text: string): string {
  if (text.length <= TOOL_UPDATE_CHARACTERS) return text;
  const skipped = text.length - TOOL_UPDATE_CHARACTERS;
  return `[… ${skipped} characters skipped]\n${text.slice(skipped)}`;
}

function sizeOf(event: LiveEvent): number {
  if (event.type === 'message_update') {
    const inner = event.assistantMessageEvent;
    if ('delta' in inner) return inner.delta.length;
    if ('content' in inner) return inner.content.length;
    return 16;
  }
  if (event.type === 'tool_execution_update') {
    return event.partialResult.content.reduce((sum, block) => sum + block.text.length, 0);
  }
  return 16;
}
