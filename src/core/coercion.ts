import { cloneJson, isPlainRecord } from './json-values.js';

/**
 * Coercion of primitives toward a JSON Schema's declared types (R8): `"3"` to `3` for a
 * number, `"true"` to `true` for a boolean, `7` to `"7"` for a string. Unions (`anyOf`,
 * `oneOf`, a list of `type`s) are tried in order; a value some branch already accepts is kept,
 * else the first branch the coerced value passes wins. Works in place on a value the caller
 * owns (a deep copy of the arguments).
 */

type Schema = Record<string, unknown>;
export type BranchCheck = (schema: Schema, value: unknown) => boolean;

function asSchema(value: unknown): Schema | undefined {
  return isPlainRecord(value) ? value : undefined;
}

function declaredTypes(schema: Schema): string[] {
  if (typeof schema.type === 'string') return [schema.type];
  if (Array.isArray(schema.type)) {
    return schema.type.filter((type): type is string => typeof type === 'string');
  }
  return [];
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isPlainRecord(value);
    default:
      return false;
  }
}

const NOT_COERCIBLE = Symbol('not coercible');

function coercePrimitive(value: unknown, type: string): unknown {
  switch (type) {
    case 'number':
    case 'integer': {
      if (typeof value !== 'string' || value.trim() === '') return NOT_COERCIBLE;
      const parsed = Number(value);
      if (!Number.isFinite(parsed)) return NOT_COERCIBLE;
      if (type === 'integer' && !Number.isInteger(parsed)) return NOT_COERCIBLE;
      return parsed;
    }
    case 'boolean':
      if (value === 'true') return true;
      if (value === 'false') return false;
      return NOT_COERCIBLE;
    case 'string':
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      return NOT_COERCIBLE;
    default:
      return NOT_COERCIBLE;
  }
}

function coerceByTypes(value: unknown, schema: Schema): unknown {
  const types = declaredTypes(schema);
  if (types.length === 0 || types.some((type) => hasType(value, type))) return value;
  for (const type of types) {
    const coerced = coercePrimitive(value, type);
    if (coerced !== NOT_COERCIBLE) return coerced;
  }
  return value;
}

function coerceChildren(value: unknown, schema: Schema, check: BranchCheck, depth: number): void {
  if (isPlainRecord(value)) {
    const properties = asSchema(schema.properties);
    if (properties) {
      for (const key of Object.keys(properties)) {
        const propertySchema = asSchema(properties[key]);
        if (propertySchema && Object.prototype.hasOwnProperty.call(value, key)) {
          value[key] = coerceValue(value[key], propertySchema, check, depth + 1);
        }
      }
    }
    const additional = asSchema(schema.additionalProperties);
    if (additional) {
      for (const key of Object.keys(value)) {
        if (!properties || !Object.prototype.hasOwnProperty.call(properties, key)) {
          value[key] = coerceValue(value[key], additional, check, depth + 1);
        }
      }
    }
    return;
  }
  if (Array.isArray(value)) {
    const prefixItems = Array.isArray(schema.prefixItems) ? schema.prefixItems : undefined;
    const items = asSchema(schema.items);
    value.forEach((item: unknown, index) => {
      const itemSchema = asSchema(prefixItems?.[index]) ?? items;
      if (itemSchema) value[index] = coerceValue(item, itemSchema, check, depth + 1);
    });
  }
}

function coerceUnion(value: unknown, branches: unknown[], check: BranchCheck, depth: number) {
  const schemas = branches.map(asSchema).filter((branch) => branch !== undefined);
  if (schemas.some((branch) => check(branch, value))) return value;
  for (const branch of schemas) {
    // Each branch works on its own copy, so that a failed branch leaves no half-coerced value.
    const candidate = coerceValue(cloneJson(value), branch, check, depth + 1);
    if (check(branch, candidate)) return candidate;
  }
  return value;
}

/**
 * Returns the value coerced toward `schema`. Objects and arrays are changed in place and
 * returned; primitives are returned converted. `check` tells whether a value passes a branch.
 *
 * Every part of the schema is applied (R8): its own `type`, `allOf`, `properties` / `items`,
 * then the `anyOf` and `oneOf` unions, so that `{ type: "object", properties: { a: number },
 * anyOf: [...] }` still turns `{ a: "1" }` into `{ a: 1 }`. The union comes last: its branches
 * are checked against the value the rest of the schema already shaped.
 */
export function coerceValue(
  value: unknown,
  schema: Schema,
  check: BranchCheck,
  depth = 0,
): unknown {
  // The clone before this already refused deeper values; this guards schemas that recurse.
  if (depth > 256) return value;
  let result = coerceByTypes(value, schema);
  if (Array.isArray(schema.allOf)) {
    for (const part of schema.allOf) {
      const partSchema = asSchema(part);
      if (partSchema) result = coerceValue(result, partSchema, check, depth + 1);
    }
  }
  coerceChildren(result, schema, check, depth);
  if (Array.isArray(schema.anyOf)) result = coerceUnion(result, schema.anyOf, check, depth);
  if (Array.isArray(schema.oneOf)) result = coerceUnion(result, schema.oneOf, check, depth);
  return result;
}
