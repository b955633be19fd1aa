import type { BeforeToolCallHook, BeforeToolCallResult } from '../core/index.js';
import { ANY_TOOL, type Policy, type PolicyRule } from './policy-file.js';
import { compileRulePattern, type RulePattern } from './rule-pattern.js';
import { createWorkspaceRule, type PathArguments } from './workspace-policy.js';

export interface PolicyGateOptions {
  /** Absolute posix path of the job's workspace. */
  workspace: string;
  /** Rules from a policy file (see `parsePolicy`). */
  policy?: Policy;
  /** Overrides which tools the workspace rule confines (default: read, write, edit, ls). */
  pathArguments?: PathArguments;
}

interface CompiledRule {
  tool: string;
  reason: string;
  argument?: string;
  pattern?: RulePattern;
}

function compileRule(rule: PolicyRule): CompiledRule {
  const pattern = rule.pattern === undefined ? undefined : compileRulePattern(rule.pattern);
  return { tool: rule.tool, reason: rule.reason, argument: rule.argument, pattern };
}

function matches(rule: CompiledRule, toolName: string, args: unknown): boolean {
  if (rule.tool !== ANY_TOOL && rule.tool !== toolName) return false;
  if (rule.argument === undefined || rule.pattern === undefined) return true;
  if (typeof args !== 'object' || args === null || !Object.hasOwn(args, rule.argument)) {
    return false;
  }
  const value = (args as Record<string, unknown>)[rule.argument];
  return typeof value === 'string' && rule.pattern.test(value);
}

/**
 * The `beforeToolCall` gate (R10): the workspace rule first, then the policy file's rules in
 * order; the first that matches blocks the call with its reason. Deterministic: no clock, no
 * I/O, no state kept between calls.
 */
export function createPolicyGate(options: PolicyGateOptions): BeforeToolCallHook {
  const workspaceRule = createWorkspaceRule({
    workspace: options.workspace,
    pathArguments: options.pathArguments,
  });
  // A rule RE2 refuses throws here: a policy that did not come through `parsePolicy` is checked
  // when the gate is made, never while a call waits.
  const rules = (options.policy?.rules ?? []).map(compileRule);

  return ({ tool, args }): BeforeToolCallResult => {
    const workspaceDecision = workspaceRule(tool.name, args);
    if (workspaceDecision) return workspaceDecision;
    const rule = rules.find((candidate) => matches(candidate, tool.name, args));
    return rule ? { block: true, reason: rule.reason } : undefined;
  };
}
