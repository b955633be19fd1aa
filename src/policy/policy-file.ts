import { compileRulePattern } from './rule-pattern.js';

/**
 * The policy file: declarative rules that block tool calls. JSON, for example:
 *
 * ```json
 * {
 *   "rules": [
 *     { "tool": "bash", "reason": "no shell here" },
 *     { "tool": "bash", "argument": "command", "pattern": "rm\\s+-rf", "reason": "no recursive deletes" },
 *     { "tool": "*", "argument": "path", "pattern": "(^|/)\\.env$", "reason": "no .env files" }
 *   ]
 * }
 * ```
 *
 * - `tool` (required): the exact tool name, or `"*"` for every tool.
 * - `reason` (required): what the model reads when the rule blocks a call.
 * - `argument` and `pattern` (both or neither): without them the rule blocks every call of the
 *   tool; with them it blocks a call only when the top-level argument `argument` is a string
 *   that the regular expression `pattern` matches (anywhere, no flags; anchor it with `^`/`$`
 *   when needed). Patterns are RE2 syntax, matched in linear time (see `rule-pattern.ts`): like
 *   JavaScript's, without backreferences or lookaround, which are refused here. A call without
 *   that argument, or with a non-string value, is let through.
 * - Rules are tried in order; the first that matches blocks the call. Unknown fields are errors,
 *   so a misspelt field cannot silently weaken a rule.
 */

export interface PolicyRule {
  tool: string;
  reason: string;
  argument?: string;
  pattern?: string;
}

export interface Policy {
  rules: PolicyRule[];
}

export const ANY_TOOL = '*';

const RULE_FIELDS = new Set(['tool', 'reason', 'argument', 'pattern']);
const POLICY_FIELDS = new Set(['rules']);

function invalid(where: string, problem: string): Error {
  return new Error(`Invalid policy: ${where}: ${problem}`);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function rejectUnknownFields(
  value: Record<string, unknown>,
  known: Set<string>,
  where: string,
): void {
  for (const field of Object.keys(value)) {
    if (!known.has(field)) {
      throw invalid(where === '' ? field : `${where}.${field}`, 'is not a known field');
    }
  }
}

function requiredText(rule: Record<string, unknown>, field: string, where: string): string {
  const value = rule[field];
  if (value === undefined) throw invalid(`${where}.${field}`, 'is required');
  if (typeof value !== 'string' || value.trim() === '') {
    throw invalid(`${where}.${field}`, 'must be a non-empty string');
  }
  return value;
}

function parseRule(value: unknown, index: number): PolicyRule {
  const where = `rules[${index}]`;
  if (!isPlainObject(value)) throw invalid(where, 'must be an object');
  rejectUnknownFields(value, RULE_FIELDS, where);
  const rule: PolicyRule = {
    tool: requiredText(value, 'tool', where),
    reason: requiredText(value, 'reason', where),
  };
  const hasArgument = value.argument !== undefined;
  const hasPattern = value.pattern !== undefined;
  if (hasArgument !== hasPattern) {
    const missing = hasArgument ? 'pattern' : 'argument';
    const present = hasArgument ? 'argument' : 'pattern';
    throw invalid(`${where}.${missing}`, `is required when "${present}" is set`);
  }
  if (hasArgument && hasPattern) {
    rule.argument = requiredText(value, 'argument', where);
    rule.pattern = requiredText(value, 'pattern', where);
    try {
      compileRulePattern(rule.pattern);
    } catch (error) {
      const problem = error instanceof Error ? error.message : String(error);
      throw invalid(`${where}.pattern (rule for tool "${rule.tool}")`, problem);
    }
  }
  return rule;
}

/**
 * Checks the parsed JSON of a policy file and returns a fresh, plain copy of it. Throws an Error
 * naming the field and rule index of the first problem. Pure: safe in workflow code.
 */
export function parsePolicy(json: unknown): Policy {
  if (!isPlainObject(json)) throw invalid('policy', 'must be an object with a "rules" array');
  rejectUnknownFields(json, POLICY_FIELDS, '');
  if (!Array.isArray(json.rules)) throw invalid('rules', 'must be an array');
  return { rules: json.rules.map((rule: unknown, index) => parseRule(rule, index)) };
}
