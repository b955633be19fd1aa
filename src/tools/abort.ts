import { OPERATION_ABORTED } from '../core/index.js';

/** Throws the same `Operation aborted` message the preflight uses (R9, R21). */
export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new Error(OPERATION_ABORTED);
}
