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
