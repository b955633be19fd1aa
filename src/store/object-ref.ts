import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';
import type { ObjectRef } from './references.js';

/** The reference of a value: `sha256:<hex>` of its canonical JSON. */
export function objectRef(value: unknown): ObjectRef {
  return refOfCanonicalText(canonicalJson(value));
}

/** The reference of a value given its canonical JSON text. */
export function refOfCanonicalText(text: string): ObjectRef {
  return `sha256:${sha256Hex(text)}`;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * A value ready to store: its reference (the hash of its canonical JSON) and the text to keep,
 * which is its own JSON, key order included. A value reads back exactly as it was written, so
 * a tool call's arguments keep the order the model gave them; two writes of the same content
 * in another key order share one reference, and the first text stays.
 */
export function encodeObject(value: unknown): { ref: ObjectRef; text: string } {
  const ref = refOfCanonicalText(canonicalJson(value));
  return { ref, text: JSON.stringify(value) };
}

/** Whether stored text is the object `ref` names (its canonical form hashes to `ref`). */
export function textMatchesRef(ref: ObjectRef, text: string): boolean {
  try {
    return refOfCanonicalText(canonicalJson(JSON.parse(text))) === ref;
  } catch {
    return false;
  }
}
