export { createPolicyGate, type PolicyGateOptions } from './policy-gate.js';
export { parsePolicy, ANY_TOOL, type Policy, type PolicyRule } from './policy-file.js';
export {
  createWorkspacePolicy,
  createWorkspaceRule,
  DEFAULT_PATH_ARGUMENTS,
  type PathArguments,
  type WorkspacePolicyOptions,
} from './workspace-policy.js';
export { isPosixPathInside, normalizePosixPath, resolvePosixPath } from './posix-path.js';
