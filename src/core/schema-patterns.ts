import { RE2JS } from 're2js';

/**
 * The regular expressions of tool schemas (`pattern`, `patternProperties`), matched in time
 * linear in the input (RE2, in pure JavaScript). The preflight checks the model's arguments in
 * workflow code: a schema pattern such as `^(\w+\s?)*$` run by JavaScript's backtracking engine
 * on an argument the model chose can take minutes, past the workflow task's deadlock limit, on
 * every replay: the job would be stuck for good. Workflow-safe.
 *
 * RE2 has no backreferences and no lookaround; a schema using them is refused when the worker
 * registers the tool. JavaScript's `\uXXXX` and `\u{X}` escapes are read as RE2's `\x{X}`. Small
 * differences remain: RE2's `\s` and `.` treat only ASCII white space and `\n` specially.
 */

/** An AJV regular-expression engine (`code.regExp`): `(pattern, flags) => { test }`. */
export interface SchemaPatternEngine {
  (pattern: string, flags: string): { test(value: string): boolean };
  code: string;
}

const HEX4 = /^[0-9A-Fa-f]{4}$/;

/** `pattern` with JavaScript's Unicode escapes written as RE2 reads them. */
export function toRe2Syntax(pattern: string): string {
  let out = '';
  for (let index = 0; index < pattern.length; index += 1) {
    const character = pattern[index];
    if (character !== '\\' || index + 1 >= pattern.length) {
      out += character;
      continue;
    }
    const next = pattern[index + 1];
    const four = pattern.slice(index + 2, index + 6);
    if (next === 'u' && HEX4.test(four)) {
      out += `\\x{${four}}`;
      index += 5;
      continue;
    }
    if (next === 'u' && pattern[index + 2] === '{') {
      const close = pattern.indexOf('}', index + 3);
      const digits = close > 0 ? pattern.slice(index + 3, close) : '';
      if (/^[0-9A-Fa-f]{1,6}$/.test(digits)) {
        out += `\\x{${digits}}`;
        index = close;
        continue;
      }
    }
    // Any other escape is copied whole, so that `\\u0041` stays a backslash and `u0041`.
    out += `\\${next}`;
    index += 1;
  }
  return out;
}

/** Compiles `pattern` with RE2; throws an Error saying why RE2 refuses it. */
function compileLinear(pattern: string): RE2JS {
  try {
    return RE2JS.compile(toRe2Syntax(pattern));
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(
      `the pattern ${JSON.stringify(pattern.slice(0, 200))} is not one the linear-time matcher ` +
        `(RE2) accepts (${detail}); backreferences and lookaround are not supported`,
      { cause: error },
    );
  }
}

/** The linear-time engine for AJV: every schema pattern is compiled once per validator. */
export const linearPatternEngine: SchemaPatternEngine = Object.assign(
  (pattern: string, flags: string) => {
    const compiled = compileLinear(pattern);
    return {
      test: (value: string) => compiled.test(value),
      // AJV keys its per-validator cache of patterns by this text.
      toString: () => `/${pattern}/${flags}`,
    };
  },
  { code: 'linearPatternEngine' },
);
