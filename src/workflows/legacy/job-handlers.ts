import { setHandler } from '@temporalio/workflow';
import { userMessage } from '../../core/index.js';
import {
  eventsQuery,
  followUpSignal,
  statusQuery,
  steerSignal,
  transcriptQuery,
} from '../definitions.js';
import type { EventLog } from './event-log.js';
import type { JobState } from './job-state.js';
import { jobStatus } from './job-status.js';
import { boundedPage } from '../bounded-page.js';

/**
 * Installs the job's signal and query handlers. Signals only queue messages (R20); queries read
 * the state and never change it.
 */
export function installJobHandlers(state: JobState, log: EventLog, isAborted: () => boolean) {
  setHandler(steerSignal, (text) => {
    state.steering.push(userMessage(text, Date.now()));
  });
  setHandler(followUpSignal, (text) => {
    state.followUps.push(userMessage(text, Date.now()));
  });
  setHandler(statusQuery, () => jobStatus(state, log.lastSeq, isAborted()));
  setHandler(eventsQuery, (afterSeq, limit) => log.after(afterSeq, limit));
  setHandler(transcriptQuery, (from = 0) => boundedPage(state.messages, from, Infinity));
}
