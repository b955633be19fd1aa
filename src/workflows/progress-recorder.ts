import {
  ActivityCancellationType,
  CancellationScope,
  proxyLocalActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { AgentActivities } from '../activities/index.js';
import type { JobState } from './job-state.js';
import { advanceTranscript, transcriptLength, unstoredMessages } from './job-state.js';
import type { JobEvent, JobStatus } from './job-types.js';

/**
 * The job's events and status go to the job store through a local activity: its input never
 * enters history (only a small marker with its result does), so the event stream costs history
 * nothing however large the events are. A store outage retries with backoff: the job waits.
 */
const { recordProgress } = proxyLocalActivities<AgentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
  },
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
});

export interface ProgressRecorder {
  /** Numbers an event and queues it; it is written with the next flush, started at once. */
  record(event: JobEvent): void;
  /** Resolves when every event recorded so far, and the transcript, are in the store. */
  flush(): Promise<void>;
}

/**
 * `agent_end` refers to the run's messages by their transcript positions instead of copying
 * them: the recorder stores the transcript first and fills in `head`. Readers expand it.
 */
function storedForm(event: JobEvent, state: JobState): unknown {
  if (event.type !== 'agent_end') return event;
  return {
    type: 'agent_end',
    messages: [],
    messagesRange: { start: state.runStart, end: transcriptLength(state) },
  };
}

export function createProgressRecorder(
  state: JobState,
  statusOf: () => JobStatus,
): ProgressRecorder {
  const jobId = workflowInfo().workflowId;
  let queued: { seq: number; event: unknown }[] = [];
  let chain: Promise<void> = Promise.resolve();
  let scheduled = false;

  /** Writes the queued events, the unstored messages and the status (always, when asked). */
  const write = async (always: boolean): Promise<void> => {
    scheduled = false;
    const events = queued;
    queued = [];
    const unstored = unstoredMessages(state);
    if (!always && events.length === 0 && unstored.length === 0) return;
    const written = await CancellationScope.nonCancellable(() =>
      recordProgress({
        jobId,
        events,
        status: statusOf(),
        transcript: { pointer: state.transcript, unstored },
      }),
    );
    advanceTranscript(state, written.transcript);
  };

  return {
    record(event) {
      state.lastSeq += 1;
      queued.push({ seq: state.lastSeq, event: storedForm(event, state) });
      if (scheduled) return;
      // Written after this activation's other events are queued: one write for a burst.
      scheduled = true;
      chain = chain.then(() => write(false));
    },
    flush() {
      chain = chain.then(() => write(true));
      return chain;
    },
  };
}
