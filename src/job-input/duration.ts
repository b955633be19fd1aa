import { UsageError } from './usage-error.js';

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `90s`, `30m`, `2h`, `1.5h`, `500ms` in milliseconds; undefined when it is not one. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text.trim());
  const unit = match?.[2] === undefined ? undefined : DURATION_UNITS[match[2]];
  if (match?.[1] === undefined || unit === undefined) return undefined;
  const milliseconds = Math.round(Number(match[1]) * unit);
  return milliseconds >= 1 ? milliseconds : undefined;
}

/** `500 ms`, `90 s`, `5 min`: a duration as a message names it (whole seconds above one). */
export function describeDuration(milliseconds: number): string {
  if (milliseconds < 1000) return `${milliseconds} ms`;
  if (milliseconds % 60_000 === 0) return `${milliseconds / 60_000} min`;
  return `${Math.round(milliseconds / 1000)} s`;
}

/**
 * The longest duration a command-line flag takes: 100 years, far past any job's. A longer one
 * would make dates no `Date` can hold (`dar prune` printed its report with one) or timers Temporal
 * refuses.
 */
export const MAXIMUM_FLAG_DURATION_MS = 100 * 365 * 86_400_000;

/** Throws a {@link UsageError} naming the maximum when a flag's duration is past it. */
export function checkFlagDuration(flag: string, text: string, milliseconds: number): void {
  if (milliseconds > MAXIMUM_FLAG_DURATION_MS) {
    throw new UsageError(`${flag} must be at most 100 years, not "${text}"`);
  }
}
