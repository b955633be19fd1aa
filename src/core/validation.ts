import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { TSchema } from '@sinclair/typebox';
import { coerceValue } from './coercion.js';
import { cloneJson, describeValue } from './json-values.js';
import { linearPatternEngine } from './schema-patterns.js';
import { MAXIMUM_LISTED_FAILURES, MAXIMUM_QUOTED_LENGTH, quoteBounded } from './limits.js';

/**
 * Argument validation (R8): deep copy, coercion toward the schema, then an AJV check. One AJV
 * instance for the process (or workflow context), made on first use; compiled validators are
 * cached per schema object, so a tool's schema is compiled once however many calls it gets.
 *
 * In a workflow the cache lives as long as one workflow (each gets fresh module state), so
 * compiling there costs every job tens of milliseconds of CPU: the build compiles the fixed
 * schemas ahead of time and installs them with `cacheValidator` (see `precompiled-validators.ts`).
 */

/** The options of every validator, compiled at run time or ahead of time. */
export const VALIDATOR_OPTIONS = {
  allErrors: true,
  strict: false,
  validateFormats: false,
} as const;

/**
 * How schema patterns are matched: `linear` (RE2, see `schema-patterns.ts`) everywhere, except
 * in the workflows of jobs an earlier release started, which replay with JavaScript's own engine
 * (`backtracking`) so that their preflight decides as it did.
 */
export type PatternEngine = 'linear' | 'backtracking';

let patternEngine: PatternEngine = 'linear';
let ajv: Ajv | undefined;
const validators = new WeakMap<object, ValidateFunction>();

/**
 * Chooses the pattern engine of the validators compiled from now on. A workflow calls it once,
 * at its start, before any validation (each workflow has its own module state).
 */
export function usePatternEngine(engine: PatternEngine): void {
  if (engine === patternEngine) return;
  patternEngine = engine;
  ajv = undefined;
}

export function validatorFor(schema: object): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) {
    ajv ??= new Ajv(
      patternEngine === 'linear'
        ? { ...VALIDATOR_OPTIONS, code: { regExp: linearPatternEngine } }
        : VALIDATOR_OPTIONS,
    );
    validate = ajv.compile(schema);
    validators.set(schema, validate);
  }
  return validate;
}

/** Uses `validate` for `schema` from now on; it must have been compiled from that schema. */
export function cacheValidator(schema: object, validate: ValidateFunction): void {
  validators.set(schema, validate);
}

function passes(schema: Record<string, unknown>, value: unknown): boolean {
  try {
    return validatorFor(schema)(value);
  } catch {
    // A branch that cannot compile on its own (a dangling $ref, say) is simply not taken.
    return false;
  }
}

export type ValidationOutcome =
  { ok: true; value: unknown } | { ok: false; message: string; failures: string[] };

/** `/edits/0/oldText` becomes `edits.0.oldText`; the root is `root` (Pi's name for it). */
function pathOf(error: ErrorObject): string {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
    segments.push(params.missingProperty);
  }
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    segments.push(params.additionalProperty);
  }
  return segments.length === 0 ? 'root' : segments.join('.');
}

/**
 * The failure in Pi's words (its validator's English messages), so that prompts tuned on Pi
 * read the same. Unlike Pi, each missing or unexpected field is named by its own path (R8).
 */
function describeFailure(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  let text: string;
  if (error.keyword === 'required') {
    text = `must have required properties ${String(params.missingProperty)}`;
  } else if (error.keyword === 'additionalProperties') {
    text = 'must not have additional properties';
  } else if (error.keyword === 'type' && Array.isArray(params.type)) {
    text = `must be either ${params.type.map(String).join(' or ')}`;
  } else {
    text = (error.message ?? 'is invalid').replace('must NOT', 'must not');
  }
  return `${pathOf(error)}: ${text}`;
}

/**
 * Validates `rawArguments` against `schema` without touching them: the result's `value` is a
 * coerced deep copy. On failure the message names every failing field by path and shows the
 * arguments as received.
 */
export function validateArguments(
  toolName: string,
  schema: TSchema,
  rawArguments: unknown,
  /** What the model sent, when `rawArguments` went through a shim first (R7). */
  received: unknown = rawArguments,
): ValidationOutcome {
  const copy = cloneJson(rawArguments);
  const coerced = coerceValue(copy, schema, passes);
  const validate = validatorFor(schema);
  if (validate(coerced)) return { ok: true, value: coerced };
  const failures = [...new Set((validate.errors ?? []).map(describeFailure))];
  // A field path is model input (an unknown key can be of any length), and so is the dump.
  const listed = failures.slice(0, MAXIMUM_LISTED_FAILURES);
  const unlisted = failures.length - listed.length;
  const message = [
    `Validation failed for tool "${toolName}":`,
    ...listed.map((failure) => `  - ${quoteBounded(failure)}`),
    ...(unlisted > 0 ? [`  - ... and ${unlisted} more failing fields`] : []),
    '',
    'Received arguments:',
    // Indented like Pi's; cut at the quoting limit (the arguments are model input).
    describeValue(received, MAXIMUM_QUOTED_LENGTH, 2),
  ].join('\n');
  return { ok: false, message, failures };
}
