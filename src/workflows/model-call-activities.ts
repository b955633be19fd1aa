/**
 * The activities that call a model: `callModel` (jobs started before the job store),
 * `callModelWithStore`, `callModelOnStoredSetup` (the same with the system prompt and tools by
 * reference), and `callModelUnlessPaced` (a run's first call from release `2026-12e`, which may
 * answer without calling: see `ModelCallLeftToPacing`).
 */
export const MODEL_CALL_ACTIVITIES: ReadonlySet<string> = new Set([
  'callModel',
  'callModelWithStore',
  'callModelOnStoredSetup',
  'callModelUnlessPaced',
]);

/** Whether a model activity's result says it made no call (its worker paces the provider). */
export function isModelCallLeftToPacing(result: unknown): boolean {
  return typeof result === 'object' && result !== null && 'notCalled' in result;
}
