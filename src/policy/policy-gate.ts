import type { ApprovalRequest, BeforeToolCallHook, BeforeToolCallResult } from '../core/index.js';
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
  /** Set on an approval rule: what the call asks for instead of being blocked. */
  approval?: ApprovalRequest;
}

function compileRule(rule: PolicyRule): CompiledRule {
  const pattern = rule.pattern === undefined ? undefined : compileRulePattern(rule.pattern);
  const compiled: CompiledRule = {
    tool: rule.tool,
    reason: rule.reason,
    argument: rule.argument,
    pattern,
  };
  if (rule.approve) compiled.approval = approvalRequest(rule);
  return compiled;
}

/** The core's request for an approval rule: `onTimeout: "allow"` is the core's `approve`. */
function approvalRequest(rule: PolicyRule): ApprovalRequest {
  if (rule.timeoutMs === undefined) return { reason: rule.reason };
  return {
    reason: rule.reason,
    timeoutMs: rule.timeoutMs,
    onTimeout: rule.onTimeout === 'allow' ? 'approve' : 'deny',
  };
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
 * The `beforeToolCall` gate (R10): the workspace rule first, then the policy file's blocking
 * rules in order (the first that matches blocks the call with its reason), then its approval
 * rules in order (the first that matches asks a human, R22). Deterministic: no clock, no I/O,
 * no state kept between calls.
 */
export function createPolicyGate(options: PolicyGateOptions): BeforeToolCallHook {
  const workspaceRule = createWorkspaceRule({
    workspace: options.workspace,
    pathArguments: options.pathArguments,
  });
  // A rule RE2 refuses throws here: a policy that did not come through `parsePolicy` is checked
  // when the gate is made, never while a call waits.
  const compiled = (options.policy?.rules ?? []).map(compileRule);
  const blocking = compiled.filter((rule) => rule.approval === undefined);
  const asking = compiled.filter((rule) => rule.approval !== undefined);

  return ({ tool, args }): BeforeToolCallResult => {
    const workspaceDecision = workspaceRule(tool.name, args);
    if (workspaceDecision) return workspaceDecision;
    const blocked = blocking.find((candidate) => matches(candidate, tool.name, args));
    if (blocked) return { block: true, reason: blocked.reason };
    const asked = asking.find((candidate) => matches(candidate, tool.name, args));
    return asked?.approval ? { approval: { ...asked.approval } } : undefined;
  };
}
