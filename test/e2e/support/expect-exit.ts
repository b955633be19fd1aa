import { describeResult, type DarResult } from './dar.js';

/**
 * Expects the command to have exited with `code`; on failure, shows what it printed. Kept apart
 * from `dar.ts`, which the benchmarks compile outside jest (where `expect` does not exist).
 */
export function expectExit(result: DarResult, code: number): void {
  const context = describeResult(result);
  expect({ code: result.code, context }).toEqual({ code, context });
}
