import type { JobBudget } from '../workflows/job-budget.js';
import { checkFlagDuration, parseDuration } from './duration.js';
import { UsageError } from './usage-error.js';

/** The budget flags of `dar run`, as typed. */
export interface BudgetFlags {
  maxTurns?: string | undefined;
  maxTokens?: string | undefined;
  maxCost?: string | undefined;
  maxTime?: string | undefined;
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
    checkFlagDuration('--max-time', flags.maxTime, milliseconds);
    budget.maxWallTimeMs = milliseconds;
  }
  return Object.keys(budget).length > 0 ? budget : undefined;
}
