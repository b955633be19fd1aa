import { RE2JS } from 're2js';

/**
 * A policy rule's pattern, matched in time linear in the input (RE2, in pure JavaScript): a rule
 * such as `^(a+)+$` against a long model-supplied string must not stall the workflow task, as a
 * backtracking `RegExp` would. RE2 has no backreferences and no lookaround.
 */
export interface RulePattern {
  /** Whether the pattern matches anywhere in `value`. Stateless: same answer every time. */
  test(value: string): boolean;
}

/**
 * Compiles `pattern`; throws an Error saying why RE2 refuses it (the caller names the rule).
 * Pure and workflow-safe.
 */
export function compileRulePattern(pattern: string): RulePattern {
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(
      `is not a pattern the linear-time matcher (RE2) accepts (${detail}); ` +
        'backreferences and lookaround are not supported',
      { cause: error },
    );
  }
  return { test: (value) => compiled.test(value) };
}
