import { drainQueue, type Message, type QueueMode } from '../core/index.js';
import type { AgentJobInput } from './job-types.js';
import type { ReleaseFeatures } from './release-features.js';

/**
 * Marks histories of jobs that deliver queued messages by Pi's default, one per turn. A job
 * whose history lacks it (started by an earlier release) keeps delivering every queued message
 * at once, which is what it did when its history was recorded.
 */
export const QUEUE_MODE_PATCH = 'dar-queue-mode';

export interface JobQueueModes {
  steeringMode: QueueMode;
  followUpMode: QueueMode;
}

/**
 * The job's queue modes: the input's when set; else Pi's `one-at-a-time` for a job started by
 * this release (patched), `all` for one started before. A run continued as new carries the
 * modes in its input (see `withQueueModes`), so a continued job never changes mode; a run
 * carried over from an earlier release has none and keeps `all`.
 */
export function jobQueueModes(input: AgentJobInput, features: ReleaseFeatures): JobQueueModes {
  const steeringMode = input.steeringMode;
  const followUpMode = input.followUpMode;
  if (steeringMode !== undefined && followUpMode !== undefined) {
    return { steeringMode, followUpMode };
  }
  const fallback: QueueMode =
    input.carried === undefined && features.has(QUEUE_MODE_PATCH) ? 'one-at-a-time' : 'all';
  return { steeringMode: steeringMode ?? fallback, followUpMode: followUpMode ?? fallback };
}

/** The input with its modes written in, for the runs it continues as new into. */
export function withQueueModes(input: AgentJobInput, modes: JobQueueModes): AgentJobInput {
  return { ...input, ...modes };
}

/**
 * The prompts of a run that a queued message starts in a kept-open job, taken from the queues.
 * With both modes `all`: every queued message, steering first (as before modes existed). Else,
 * as Pi's `continue()`: what one read of the steering queue gives, or when it is empty, one read
 * of the follow-up queue; the rest stays queued for later turns.
 */
export function takeRunPrompts(
  queues: { steering: Message[]; followUps: Message[] },
  modes: JobQueueModes,
): Message[] {
  if (modes.steeringMode === 'all' && modes.followUpMode === 'all') {
    return [...queues.steering.splice(0), ...queues.followUps.splice(0)];
  }
  const steering = drainQueue(queues.steering, modes.steeringMode);
  return steering.length > 0 ? steering : drainQueue(queues.followUps, modes.followUpMode);
}
