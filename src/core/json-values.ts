/**
 * Helpers for untrusted JSON-like values: model-supplied arguments can hold any key
 * (`__proto__`, `constructor`), any depth and any size.
 */

/** Deeper than this, arguments are refused rather than risking the stack. */
export const MAXIMUM_ARGUMENT_DEPTH = 200;

export class ArgumentShapeError extends Error {}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A deep copy of a JSON-like value. Own enumerable string keys only; keys are defined as own
 * data properties, so `__proto__` stays a key and never becomes a prototype. Values that JSON
 * cannot carry (functions, symbols, undefined inside arrays) become null, like JSON would.
 */
export function cloneJson(value: unknown, depth = 0): unknown {
  if (depth > MAXIMUM_ARGUMENT_DEPTH) {
    throw new ArgumentShapeError(
      `arguments are nested deeper than ${MAXIMUM_ARGUMENT_DEPTH} levels`,
    );
  }
  if (value === null) return null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'object':
      break;
    default:
      return undefined;
  }
  if (Array.isArray(value)) {
    return value.map((item: unknown) => {
      const copy = cloneJson(item, depth + 1);
      return copy === undefined ? null : copy;
    });
  }
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = cloneJson((value as Record<string, unknown>)[key], depth + 1);
    if (item !== undefined) {
      Object.defineProperty(copy, key, {
        value: item,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return copy;
}

/** Freezes a value and everything reachable from it; returns it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) {
      deepFreeze((value as Record<string, unknown>)[key]);
    }
  }
  return value;
}

/**
 * JSON text of a value for an error message (indented by `indent` spaces when given), cut to
 * `maximumLength` characters.
 */
export function describeValue(value: unknown, maximumLength = 2000, indent?: number): string {
  let text: string;
  try {
    text = JSON.stringify(value, null, indent) ?? String(value);
  } catch {
    text = String(value);
  }
  if (text.length <= maximumLength) return text;
  return `${text.slice(0, maximumLength)}... (${text.length - maximumLength} more characters)`;
}

export { isPlainRecord };
