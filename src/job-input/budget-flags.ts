import type { JobBudget } from '../workflows/job-budget.js';
import { UsageError } from './usage-error.js';

/** The budget flags of `dar run`, as typed. */
export interface BudgetFlags {
  maxTurns?: string | undefined;
  maxTokens?: string | undefined;
  maxCost?: string | undefined;
  maxTime?: string | undefined;
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `90s`, `30m`, `2h`, `1.5h`, `500ms` in milliseconds; undefined when it is not one. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text.trim());
  const unit = match?.[2] === undefined ? undefined : DURATION_UNITS[match[2]];
  if (match?.[1] === undefined || unit === undefined) return undefined;
  const milliseconds = Math.round(Number(match[1]) * unit);
  return milliseconds >= 1 ? milliseconds : undefined;
}

function wholeNumber(flag: string, text: string): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) < 1) {
    throw new UsageError(`${flag} must be a whole number of at least 1, not "${text}"`);
  }
  return Number(text);
}

function amount(flag: string, text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value <= 0) {
    throw new UsageError(`${flag} must be a positive amount in US dollars, not "${text}"`);
  }
  return value;
}

/**
 * `--max-turns N --max-tokens N --max-cost USD --max-time DURATION` as a job budget; undefined
 * when none is given. A bad value is a {@link UsageError}, before anything starts.
 */
export function parseBudgetFlags(flags: BudgetFlags): JobBudget | undefined {
  const budget: JobBudget = {};
  if (flags.maxTurns !== undefined) budget.maxTurns = wholeNumber('--max-turns', flags.maxTurns);
  if (flags.maxTokens !== undefined) {
    budget.maxTokens = wholeNumber('--max-tokens', flags.maxTokens);
  }
  if (flags.maxCost !== undefined) budget.maxCostUsd = amount('--max-cost', flags.maxCost);
  if (flags.maxTime !== undefined) {
    const milliseconds = parseDuration(flags.maxTime);
    if (milliseconds === undefined) {
      throw new UsageError(
        `--max-time must be a duration such as 90s, 30m or 2h, not "${flags.maxTime}"`,
      );
    }
    budget.maxWallTimeMs = milliseconds;
  }
  return Object.keys(budget).length > 0 ? budget : undefined;
}
