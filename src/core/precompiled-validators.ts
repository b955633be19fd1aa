import { isPlainRecord } from './json-values.js';
import { cacheValidator } from './validation.js';
import type { ValidateFunction } from 'ajv';

/**
 * Validators compiled ahead of time. A root schema (a tool's parameters, the job input) and
 * every branch of a union inside it (coercion checks branches on their own, R8) are compiled by
 * `scripts/compile-validators.mjs` at build time, in the order this walk gives; at run time the
 * generated module hands them back in the same order and they go into the validator cache, so
 * the schema objects are never compiled in the workflow.
 */

function visit(value: unknown, found: object[], seen: Set<object>): void {
  if (typeof value !== 'object' || value === null || seen.has(value)) return;
  seen.add(value);
  if (Array.isArray(value)) {
    for (const item of value) visit(item, found, seen);
    return;
  }
  if (!isPlainRecord(value)) return;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = value[key];
    if (!Array.isArray(branches)) continue;
    for (const branch of branches) {
      if (isPlainRecord(branch) && !found.includes(branch)) found.push(branch);
    }
  }
  for (const child of Object.values(value)) visit(child, found, seen);
}

/** The root, then every union branch inside it, in a stable order (keys in insertion order). */
export function schemasToCompile(root: object): object[] {
  const found: object[] = [root];
  visit(root, found, new Set());
  return found;
}

/**
 * Installs `compiled`, one validator per schema of `schemasToCompile(root)`. A list of another
 * length means the schema is not the one compiled at build time: it is ignored, and the schemas
 * compile at run time as before (slower, same results).
 */
export function installCompiledValidators(
  root: object,
  compiled: readonly ValidateFunction[],
): boolean {
  const schemas = schemasToCompile(root);
  if (schemas.length !== compiled.length) return false;
  schemas.forEach((schema, index) => cacheValidator(schema, compiled[index] as ValidateFunction));
  return true;
}
