import { lstat, readlink, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { quoteBounded } from '../core/index.js';
import { errorCode } from './error-code.js';
import { describeFileError } from './file-errors.js';

/** Linux gives up after 40 symlinks in one lookup; so do we. */
const MAX_SYMLINK_HOPS = 40;

/**
 * Where `path` really is once every symlink is followed, also when it does not exist yet: the
 * real path of its nearest existing parent plus the rest. A dangling symlink is followed to its
 * target, since writing through it would create the target.
 */
export async function realLocation(path: string, hops = 0): Promise<string> {
  if (hops > MAX_SYMLINK_HOPS) throw new Error(`Too many levels of symbolic links at ${path}`);
  try {
    return await realpath(path);
  } catch (error) {
    const code = errorCode(error);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
  }
  const status = await lstat(path).catch(() => undefined);
  if (status?.isSymbolicLink()) {
    const target = resolve(dirname(path), await readlink(path));
    return realLocation(target, hops + 1);
  }
  const parent = dirname(path);
  if (parent === path) return path;
  return join(await realLocation(parent, hops), basename(path));
}

function isInside(root: string, path: string): boolean {
  const fromRoot = relative(root, path);
  return (
    fromRoot === '' ||
    (fromRoot !== '..' && !fromRoot.startsWith(`..${sep}`) && !isAbsolute(fromRoot))
  );
}

/**
 * Resolves a tool's `path` argument against the workspace and refuses (throws) a path whose
 * real location is outside the workspace's real location. The workflow-side policy checks the
 * same lexically; only here, with the file system at hand, can a symlink that points out be seen.
 */
export async function resolveWorkspacePath(workspace: string, path: string): Promise<string> {
  let realWorkspace: string;
  try {
    realWorkspace = await realpath(workspace);
  } catch (error) {
    throw new Error(`The workspace ${workspace} does not exist`, { cause: error });
  }
  const absolute = resolve(workspace, path);
  // ENAMETOOLONG and the like: the system's message would quote the whole path.
  const real = await realLocation(absolute).catch((error: unknown) => {
    throw describeFileError(error, path);
  });
  if (!isInside(realWorkspace, real)) {
    throw new Error(
      `Path "${quoteBounded(path)}" is outside the workspace ` +
        `(its real location is ${quoteBounded(real)})`,
    );
  }
  return absolute;
}
