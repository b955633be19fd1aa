import type { StoredJobStatus } from '../activities/job-status-record.js';
import type { SequencedLiveEvent } from '../live/live-events.js';
import type { SequencedEvent } from '../workflows/job-types.js';

/**
 * Decides which live events a follower still shows: none of a message or tool call whose final
 * event (`message_end`, `tool_execution_end`) is stored already. It knows that from the events
 * the follower passed on, and, for a follower that starts in the middle, from the job's stored
 * status (written after the events it counts).
 */
export class LiveFilter {
  /** Model calls up to this index have ended (their `message_end` was passed on). */
  private endedCallIndex = -1;
  /** The highest call index among the live message events passed on. */
  private seenCallIndex = -1;
  private readonly endedTools = new Set<string>();

  /** Notes a job event the follower passed on. */
  noteEvent(event: SequencedEvent): void {
    if (event.type === 'message_end' && event.message.role === 'assistant') {
      this.endedCallIndex = Math.max(this.endedCallIndex, this.endingCall() ?? -1);
    }
    if (event.type === 'tool_execution_end') this.endedTools.add(event.toolCallId);
  }

  /**
   * The call the next assistant `message_end` ends, when known: the live one seen; when none of
   * its live events was seen yet (the stored end was read first), the one after the last that
   * ended.
   */
  private endingCall(): number | undefined {
    if (this.seenCallIndex > this.endedCallIndex) return this.seenCallIndex;
    if (this.endedCallIndex >= 0) return this.endedCallIndex + 1;
    return undefined;
  }

  /**
   * Before the follower passes `event` on: the last model call whose live events may still be
   * waiting to be read ahead of it, when `event` ends a message or a tool call. The final live
   * events of a call are stored before its end; a follower that read the live stream before they
   * were and reads the end now must read the live stream again first, up to this call, or the
   * end would make them stale unseen.
   */
  liveCallsBefore(event: SequencedEvent): number | undefined {
    if (event.type === 'message_end' && event.message.role === 'assistant') {
      return this.endingCall();
    }
    if (event.type === 'tool_execution_end') return this.endedCallIndex;
    return undefined;
  }

  /** Whether `event` is still live, given the job's stored status (when read). */
  isCurrent(event: SequencedLiveEvent, status: StoredJobStatus | undefined): boolean {
    if (event.type === 'tool_execution_update') {
      if (this.endedTools.has(event.toolCallId)) return false;
      if (!status || event.turn === undefined) return true;
      // A later turn has started, or the run is over: the tool's end is stored.
      if (status.phase === 'waiting' || status.phase === 'done') return false;
      return status.turns <= event.turn;
    }
    if (event.callIndex <= this.endedCallIndex) return false;
    // A call whose live events the follower is showing stays current until its end is passed
    // on, whatever the status says: the status may already count that end while the follower
    // has not read it, and the call's last live events, stored before its end, belong before it.
    if (status && event.callIndex !== this.seenCallIndex) {
      // The call after this one has started, or this one is past its model phase.
      const started = status.modelCalls - 1;
      if (started > event.callIndex) return false;
      if (started === event.callIndex && status.phase !== 'model') return false;
    }
    this.seenCallIndex = Math.max(this.seenCallIndex, event.callIndex);
    return true;
  }
}
