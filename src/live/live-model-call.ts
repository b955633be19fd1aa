import { JOB_STATUS_RECORD, type StoredJobStatus } from '../activities/job-status-record.js';
import type { JobStore } from '../store/job-store.js';
import { liveAssistantEvent } from './assistant-stream.js';
import type { LiveCallTag } from './live-events.js';
import { LivePublisher, withoutKeys } from './live-publisher.js';

export interface LiveModelCall {
  /** Hands a provider's streamed event on (Pi's `AssistantMessageEvent`). Never throws. */
  onStreamEvent: (event: unknown) => void;
  /**
   * Writes what waits, then compacts: once the job's stored status shows that this call has
   * started (so every earlier `message_end` and `tool_execution_end` is stored before it), the
   * live events before this attempt's first one are dropped. Never rejects.
   */
  finish(): Promise<void>;
}

/**
 * The live side of one model call attempt: a retry first says the earlier attempts' partial
 * message is void, then `start`, then the provider's events, batched (see `LivePublisher`).
 * `start` waits for the provider's first event: a call that streams nothing (a provider that
 * does not stream) writes nothing to the live stream and reads nothing back at its end.
 */
export function openLiveModelCall(
  store: JobStore,
  jobId: string,
  tag: LiveCallTag,
  onFailure: (error: unknown) => void,
): LiveModelCall {
  const publisher = new LivePublisher({ store, jobId, onFailure, scrub: withoutKeys });
  let started = false;
  // Marks where this attempt's events begin, which compaction needs.
  const start = () => {
    if (started) return;
    started = true;
    publisher.publish({ type: 'message_update', ...tag, assistantMessageEvent: { type: 'start' } });
  };
  if (tag.attempt > 1) {
    publisher.publish({ type: 'message_void', ...tag, attempt: tag.attempt - 1 });
    start();
  }
  return {
    onStreamEvent: (event) => {
      const assistantMessageEvent = liveAssistantEvent(event);
      if (assistantMessageEvent && assistantMessageEvent.type !== 'start') {
        start();
        publisher.publish({ type: 'message_update', ...tag, assistantMessageEvent });
      }
    },
    async finish() {
      await publisher.close();
      const first = publisher.firstSeq;
      // After a failed write the store is likely down: no more waiting on it in this call.
      if (first === undefined || first <= 1 || publisher.lost > 0) return;
      try {
        const status = (await store.getRecord(JOB_STATUS_RECORD, jobId)) as unknown as
          StoredJobStatus | undefined;
        if (status && status.modelCalls >= tag.callIndex + 1) {
          await store.dropLiveEvents(jobId, first - 1);
        }
      } catch (error) {
        onFailure(error);
      }
    },
  };
}
