import { compileRulePattern } from './rule-pattern.js';

/**
 * The policy file: declarative rules that block tool calls or ask a human first. JSON, for
 * example:
 *
 * ```json
 * {
 *   "rules": [
 *     { "tool": "bash", "argument": "command", "pattern": "rm\\s+-rf", "reason": "no recursive deletes" },
 *     { "tool": "*", "argument": "path", "pattern": "(^|/)\\.env$", "reason": "no .env files" },
 *     { "tool": "bash", "argument": "command", "pattern": "^git push", "reason": "pushes a branch",
 *       "approve": true, "timeoutMs": 3600000, "onTimeout": "deny" }
 *   ]
 * }
 * ```
 *
 * - `tool` (required): the exact tool name, or `"*"` for every tool.
 * - `reason` (required): what the model reads when the rule blocks a call; for an approval rule,
 *   what the approver is shown.
 * - `argument` and `pattern` (both or neither): without them the rule blocks every call of the
 *   tool; with them it blocks a call only when the top-level argument `argument` is a string
 *   that the regular expression `pattern` matches (anywhere, no flags; anchor it with `^`/`$`
 *   when needed). Patterns are RE2 syntax, matched in linear time (see `rule-pattern.ts`): like
 *   JavaScript's, without backreferences or lookaround, which are refused here. A call without
 *   that argument, or with a non-string value, is let through.
 * - `approve: true` (optional): the rule asks a human instead of blocking (R22). The call waits,
 *   durably, for `dar approve` / `dar deny`; a denial is the call's error result with the
 *   approver's note. `timeoutMs` (optional, a whole number of milliseconds from 1 to
 *   {@link MAX_APPROVAL_TIMEOUT_MS}, 30 days) bounds the wait; when it passes, `onTimeout` decides:
 *   `"deny"` (the default) or `"allow"`. Without `timeoutMs` the call waits until someone answers
 *   or the job is cancelled. `timeoutMs` and `onTimeout` are refused on a rule without `approve`.
 * - Blocking rules are tried first, in order; the first that matches blocks the call. Only a call
 *   that no blocking rule matches is sent for approval, by the first approval rule that matches:
 *   an approval can never let through what a blocking rule forbids. Unknown fields are errors,
 *   so a misspelt field cannot silently weaken a rule.
 */

export interface PolicyRule {
  tool: string;
  reason: string;
  argument?: string;
  pattern?: string;
  /** Ask a human instead of blocking (R22). */
  approve?: true;
  /** With `approve`: how long the call waits for a decision, in milliseconds. */
  timeoutMs?: number;
  /** With `approve` and `timeoutMs`: the decision when nobody answered in time (default deny). */
  onTimeout?: 'deny' | 'allow';
}

/** The longest wait an approval rule may ask for: 30 days. */
export const MAX_APPROVAL_TIMEOUT_MS = 30 * 24 * 60 * 60 * 1000;

export interface Policy {
  rules: PolicyRule[];
}

export const ANY_TOOL = '*';

const RULE_FIELDS = new Set([
  'tool',
  'reason',
  'argument',
  'pattern',
  'approve',
  'timeoutMs',
  'onTimeout',
]);
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
  parseApproval(value, rule, where);
  return rule;
}

/** The approval fields of a rule (`approve`, `timeoutMs`, `onTimeout`), checked into `rule`. */
function parseApproval(value: Record<string, unknown>, rule: PolicyRule, where: string): void {
  const { approve, timeoutMs, onTimeout } = value;
  if (approve !== undefined && approve !== true) {
    throw invalid(`${where}.approve`, 'must be true (leave it out for a blocking rule)');
  }
  if (approve === undefined) {
    for (const field of ['timeoutMs', 'onTimeout'] as const) {
      if (value[field] !== undefined) {
        throw invalid(`${where}.${field}`, 'is only allowed on a rule with "approve": true');
      }
    }
    return;
  }
  rule.approve = true;
  if (timeoutMs !== undefined) {
    if (
      typeof timeoutMs !== 'number' ||
      !Number.isInteger(timeoutMs) ||
      timeoutMs < 1 ||
      timeoutMs > MAX_APPROVAL_TIMEOUT_MS
    ) {
      throw invalid(
        `${where}.timeoutMs`,
        `must be a whole number of milliseconds from 1 to ${MAX_APPROVAL_TIMEOUT_MS} (30 days)`,
      );
    }
    rule.timeoutMs = timeoutMs;
  }
  if (onTimeout !== undefined) {
    if (onTimeout !== 'deny' && onTimeout !== 'allow') {
      throw invalid(`${where}.onTimeout`, 'must be "deny" or "allow"');
    }
    if (timeoutMs === undefined) {
      throw invalid(
        `${where}.onTimeout`,
        'needs "timeoutMs" (without it the call waits for a human)',
      );
    }
    rule.onTimeout = onTimeout;
  }
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

/** Characters of a rule's `reason`: it is shown with every call the rule blocks or holds. */
export const MAXIMUM_POLICY_REASON_LENGTH = 2000;

/** Characters of a rule's `pattern`. */
export const MAXIMUM_POLICY_PATTERN_LENGTH = 2000;

/** Rules of one policy: every tool call of a job is tried against each, in workflow code. */
export const MAXIMUM_POLICY_RULES = 1000;

/**
 * The size limits of a policy that a client refuses before it starts a job (`dar run`, `dar
 * batch`, `startJob`). Throws an Error naming the first rule over a limit. Only the sizes are
 * checked, on a parsed policy or on one as a client sends it (the workflow checks the rest, and
 * fails a bad policy as `BadInput`). Not applied in the workflow, which accepts what earlier
 * releases accepted: jobs started before the limits replay.
 */
export function checkPolicyLimits(policy: unknown): void {
  if (!isPlainObject(policy) || !Array.isArray(policy.rules)) return;
  const rules: unknown[] = policy.rules;
  if (rules.length > MAXIMUM_POLICY_RULES) {
    throw invalid('rules', `has ${rules.length} rules, over the limit of ${MAXIMUM_POLICY_RULES}`);
  }
  rules.forEach((rule, index) => {
    if (!isPlainObject(rule)) return;
    const limits = { reason: MAXIMUM_POLICY_REASON_LENGTH, pattern: MAXIMUM_POLICY_PATTERN_LENGTH };
    for (const [field, limit] of Object.entries(limits)) {
      const value = rule[field];
      if (typeof value === 'string' && value.length > limit) {
        throw invalid(
          `rules[${index}].${field}`,
          `has ${value.length} characters, over the limit of ${limit}`,
        );
      }
    }
  });
}
