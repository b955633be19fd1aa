/**
 * Options of Pi's `Agent` that change what a run does, which a job cannot take from the program:
 * hooks run in workflow code (R23) and the model is called by the worker. Given to a durable
 * agent, they would be silently skipped (a `beforeToolCall` that guards tools, say): the agent
 * refuses them instead.
 */
const REFUSED = [
  'beforeToolCall',
  'afterToolCall',
  'shouldStopAfterTurn',
  'prepareNextTurn',
  'prepareNextTurnWithContext',
  'transformContext',
  'convertToLlm',
] as const;

/** Throws when the options hold one of Pi's hooks, naming it and what to do instead. */
export function refusePiHooks(options: object): void {
  const given = REFUSED.filter((name) => (options as Record<string, unknown>)[name] !== undefined);
  if (given.length === 0) return;
  throw new Error(
    `A durable agent does not take ${given.join(', ')}: a job's hooks run in workflow code, ` +
      'deterministically (a policy: see README "Coming from Pi"); use runAgentLoop from src/core to run them in-process',
  );
}
