/**
 * Canonical JSON: the one text of a JSON value that its reference is the hash of. Object keys
 * are sorted (by UTF-16 code units, like `Array.prototype.sort`), there is no whitespace, and
 * numbers and strings are written as `JSON.stringify` writes them. No Node imports.
 */

/** A value that JSON cannot carry exactly; a programming error, never worth a retry. */
export class NotJsonError extends Error {
  override readonly name = 'NotJsonError';
}

/** Deeper than this, a value is refused rather than risking the stack. */
const MAXIMUM_DEPTH = 1000;

/**
 * The canonical JSON text of `value`. Throws {@link NotJsonError} for what JSON would change or
 * drop silently: `undefined` (at the top or in an array; an object property whose value is
 * `undefined` is left out, as JSON does), functions, symbols, bigint, NaN and Infinity, cycles,
 * and objects that are not plain (Date, Map, class instances).
 */
export function canonicalJson(value: unknown): string {
  return write(value, '$', new Set(), 0);
}

function write(value: unknown, path: string, ancestors: Set<object>, depth: number): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new NotJsonError(`${path} is ${value}, not a JSON number`);
      return JSON.stringify(value);
    case 'object':
      break;
    default:
      throw new NotJsonError(`${path} is a ${typeof value}, which JSON cannot carry`);
  }
  if (depth >= MAXIMUM_DEPTH) {
    throw new NotJsonError(`${path} is nested deeper than ${MAXIMUM_DEPTH} levels`);
  }
  if (ancestors.has(value)) throw new NotJsonError(`${path} refers back to itself`);
  ancestors.add(value);
  try {
    return Array.isArray(value)
      ? writeArray(value, path, ancestors, depth)
      : writeObject(value, path, ancestors, depth);
  } finally {
    ancestors.delete(value);
  }
}

function writeArray(items: unknown[], path: string, ancestors: Set<object>, depth: number): string {
  const parts: string[] = [];
  for (let index = 0; index < items.length; index += 1) {
    const item = items[index];
    if (item === undefined) {
      throw new NotJsonError(`${path}[${index}] is undefined (JSON would turn it into null)`);
    }
    parts.push(write(item, `${path}[${index}]`, ancestors, depth + 1));
  }
  return `[${parts.join(',')}]`;
}

function writeObject(record: object, path: string, ancestors: Set<object>, depth: number): string {
  const prototype: unknown = Object.getPrototypeOf(record);
  if (prototype !== Object.prototype && prototype !== null) {
    const kind = (record as { constructor?: { name?: string } }).constructor?.name ?? 'object';
    throw new NotJsonError(`${path} is a ${kind}, not a plain JSON object`);
  }
  const parts: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const item = (record as Record<string, unknown>)[key];
    if (item === undefined) continue;
    parts.push(`${JSON.stringify(key)}:${write(item, `${path}.${key}`, ancestors, depth + 1)}`);
  }
  return `{${parts.join(',')}}`;
}
