/**
 * R11: hooks receive deeply frozen arguments. A hook that changes them in place throws a
 * TypeError from the engine ("Cannot assign to read only property 'path' of object"), which
 * says nothing about what to do instead; these helpers turn it into a plain instruction.
 */

// V8's words for a write to a frozen object or array (Node runs workflows on V8 too).
const FROZEN_WRITE =
  /Cannot (assign to read only property|add property|delete property|define property)|object is not extensible|read[- ]only/i;

/** Whether `error` is the engine's complaint about a write to a frozen value. */
export function isFrozenWriteError(error: unknown): error is TypeError {
  // By name too: a TypeError from another realm (a vm context) is not `instanceof TypeError`.
  if (typeof error !== 'object' || error === null) return false;
  const { name, message } = error as { name?: unknown; message?: unknown };
  return name === 'TypeError' && typeof message === 'string' && FROZEN_WRITE.test(message);
}

/** The error text for a `beforeToolCall` that changed its arguments in place. */
export function argumentsChangedInPlaceText(hookName: string, error: TypeError): string {
  const advice =
    hookName === 'beforeToolCall'
      ? 'return { args: newArguments } instead; they are validated again before use'
      : 'it cannot change them (only the result: content, details, isError, usage, terminate)';
  return (
    `${hookName} changed the call's arguments in place, but they are frozen: ${advice}. ` +
    `(${error.message})`
  );
}
