import { checkFlagDuration, parseDuration } from './duration.js';
import { UsageError } from './usage-error.js';

/**
 * `--keep-open DURATION` (`30s`, `10m`, `2h`, `500ms`, `1.5h`) in milliseconds: how long a job
 * waits after each run that ends normally for a follow-up or steering message, which starts the
 * next run. A bad value, or one over 100 years, is a {@link UsageError}, before anything starts.
 */
export function parseKeepOpen(text: string): number {
  const milliseconds = parseDuration(text);
  if (milliseconds === undefined) {
    throw new UsageError(
      `--keep-open must be a duration such as 30s, 10m or 2h (a number and ms, s, m or h), not "${text}"`,
    );
  }
  checkFlagDuration('--keep-open', text, milliseconds);
  return milliseconds;
}
