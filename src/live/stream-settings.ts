/** How a worker streams live events. */
export interface StreamSettings {
  /** Publish token deltas and tool output to the live stream (`DAR_STREAMING`, default on). */
  enabled: boolean;
  /**
   * What happens to a job's live stream once the job ends (`DAR_STREAM_RETENTION`): `drop`
   * (default) deletes it, `keep` leaves the deltas of the last message. During a job, deltas of
   * messages whose `message_end` is stored are dropped either way.
   */
  retention: 'drop' | 'keep';
}

/** The settings from the worker's environment; an unknown value is an error naming it. */
export function streamSettingsFromEnvironment(
  environment: NodeJS.ProcessEnv = process.env,
): StreamSettings {
  const streaming = (environment.DAR_STREAMING ?? 'on').trim().toLowerCase();
  if (!['on', 'off', 'true', 'false', '1', '0'].includes(streaming)) {
    throw new Error(`DAR_STREAMING must be on or off, not "${environment.DAR_STREAMING}"`);
  }
  const retention = (environment.DAR_STREAM_RETENTION ?? 'drop').trim().toLowerCase();
  if (retention !== 'drop' && retention !== 'keep') {
    throw new Error(
      `DAR_STREAM_RETENTION must be drop or keep, not "${environment.DAR_STREAM_RETENTION}"`,
    );
  }
  return { enabled: ['on', 'true', '1'].includes(streaming), retention };
}
