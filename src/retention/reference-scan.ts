import type { JsonValue, ObjectRef } from '../store/references.js';

const REFERENCE = /sha256:[0-9a-f]{64}/g;

/**
 * Every object reference `value` holds anywhere: in a string (alone or inside text) or in a
 * property name. Deliberately wider than the places the runner writes references: a string
 * that only looks like one keeps at most an object that would otherwise go, never the reverse.
 */
export function referencesIn(value: JsonValue, found: (ref: ObjectRef) => void): void {
  const pending: JsonValue[] = [value];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next === 'string') scanText(next, found);
    else if (Array.isArray(next)) pending.push(...next);
    else if (next !== null && typeof next === 'object') {
      for (const [key, item] of Object.entries(next)) {
        scanText(key, found);
        pending.push(item);
      }
    }
  }
}

function scanText(text: string, found: (ref: ObjectRef) => void): void {
  if (!text.includes('sha256:')) return;
  for (const match of text.matchAll(REFERENCE)) found(match[0] as ObjectRef);
}
