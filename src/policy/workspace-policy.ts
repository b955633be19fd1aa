import { quoteBounded, type BeforeToolCallHook, type BeforeToolCallResult } from '../core/index.js';
import { isPosixPathInside, normalizePosixPath, resolvePosixPath } from './posix-path.js';

/** Tool name → the argument that holds the path it touches. */
export type PathArguments = Readonly<Record<string, string>>;

export const DEFAULT_PATH_ARGUMENTS: PathArguments = {
  read: 'path',
  write: 'path',
  edit: 'path',
  ls: 'path',
};

export interface WorkspacePolicyOptions {
  /** Absolute posix path of the job's workspace. */
  workspace: string;
  /** Which tools are confined, by the argument naming their path. Default: read, write, edit, ls. */
  pathArguments?: PathArguments;
}

function stringArgument(args: unknown, name: string): string | undefined {
  if (typeof args !== 'object' || args === null || !Object.hasOwn(args, name)) return undefined;
  const value = (args as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Decides for one call whether its path argument leaves the workspace. Lexical only: symlinks
 * are caught by the tool bodies, which see the file system.
 */
export function createWorkspaceRule(
  options: WorkspacePolicyOptions,
): (toolName: string, args: unknown) => BeforeToolCallResult {
  if (!options.workspace.startsWith('/')) {
    throw new Error(`The workspace must be an absolute path, got "${options.workspace}"`);
  }
  const workspace = normalizePosixPath(options.workspace);
  const pathArguments = options.pathArguments ?? DEFAULT_PATH_ARGUMENTS;

  return (toolName, args) => {
    if (!Object.hasOwn(pathArguments, toolName)) return undefined;
    const argumentName = pathArguments[toolName];
    if (argumentName === undefined) return undefined;
    // An absent optional path (ls) means the workspace itself.
    const path = stringArgument(args, argumentName);
    if (path === undefined) return undefined;
    const resolved = resolvePosixPath(workspace, path);
    if (isPosixPathInside(workspace, resolved)) return undefined;
    return {
      block: true,
      reason:
        `Path "${quoteBounded(path)}" is outside the workspace ` +
        `(it resolves to ${quoteBounded(resolved)}); ` +
        `${toolName} may only use paths inside ${workspace}.`,
    };
  };
}

/** The workspace rule as a `beforeToolCall` gate (R10). Deterministic and stateless. */
export function createWorkspacePolicy(options: WorkspacePolicyOptions): BeforeToolCallHook {
  const rule = createWorkspaceRule(options);
  return ({ tool, args }) => rule(tool.name, args);
}
