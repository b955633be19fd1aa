export { createPolicyGate, type PolicyGateOptions } from './policy-gate.js';
export {
  parsePolicy,
  checkPolicyLimits,
  ANY_TOOL,
  MAXIMUM_POLICY_PATTERN_LENGTH,
  MAXIMUM_POLICY_REASON_LENGTH,
  MAXIMUM_POLICY_RULES,
  type Policy,
  type PolicyRule,
} from './policy-file.js';
export {
  createWorkspacePolicy,
  createWorkspaceRule,
  DEFAULT_PATH_ARGUMENTS,
  type PathArguments,
  type WorkspacePolicyOptions,
} from './workspace-policy.js';
export { isPosixPathInside, normalizePosixPath, resolvePosixPath } from './posix-path.js';
