import { opendir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Dir, Dirent } from 'node:fs';
import { errorCode } from './error-code.js';
import { describeFileError } from './file-errors.js';
import { lsToolSpec } from './specs/ls.js';
import type { ToolImplementation } from './tool-implementation.js';
import { resolveWorkspacePath } from './workspace-path.js';

/** More entries than this are cut, with a note: a huge folder must not flood the context. */
const MAX_ENTRIES = 1000;

/** A symlink to a folder is listed as a folder; a dangling one as a plain entry. */
async function isFolder(folder: string, entry: Dirent): Promise<boolean> {
  if (entry.isDirectory()) return true;
  if (!entry.isSymbolicLink()) return false;
  const target = await stat(join(folder, entry.name)).catch(() => undefined);
  return target?.isDirectory() ?? false;
}

/** Code-unit order: the same on every machine, whatever its locale. */
function byCodeUnits(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/**
 * The first {@link MAX_ENTRIES} names of a folder in order, and how many it has. Read as a
 * stream, keeping only those that may be shown: a folder of millions of entries costs the time
 * to read it, not memory for every entry (and a `stat` in flight for each) at once.
 */
async function firstEntries(
  folder: string,
  directory: Dir,
  signal: AbortSignal,
): Promise<{ names: string[]; count: number }> {
  let names: string[] = [];
  let count = 0;
  for await (const entry of directory) {
    signal.throwIfAborted();
    count += 1;
    // Only a symlink costs a stat (the promise, too): most entries say what they are.
    const folderLike =
      entry.isDirectory() || (entry.isSymbolicLink() && (await isFolder(folder, entry)));
    names.push(folderLike ? `${entry.name}/` : entry.name);
    if (names.length >= 2 * MAX_ENTRIES) names = names.sort(byCodeUnits).slice(0, MAX_ENTRIES);
  }
  return { names: names.sort(byCodeUnits).slice(0, MAX_ENTRIES), count };
}

export const lsTool: ToolImplementation<typeof lsToolSpec> = {
  spec: lsToolSpec,
  async execute(args, context) {
    const shownPath = args.path ?? '.';
    const folder = await resolveWorkspacePath(context.workspace, shownPath);
    let directory: Dir;
    try {
      directory = await opendir(folder, { bufferSize: 256 });
    } catch (error) {
      const code = errorCode(error);
      const cause = { cause: error };
      if (code === 'ENOTDIR') throw new Error(`${shownPath} is a file, not a folder`, cause);
      if (code === 'ENOENT') throw new Error(`Folder not found: ${shownPath}`, cause);
      throw describeFileError(error, shownPath);
    }
    // The loop closes the folder when it ends, however it ends.
    const { names: shown, count } = await firstEntries(folder, directory, context.signal);
    let text = shown.length === 0 ? `(${shownPath} is empty)` : shown.join('\n');
    if (count > shown.length) {
      text += `\n\n[Showing ${shown.length} of ${count} entries.]`;
    }
    return {
      content: [{ type: 'text', text }],
      details: { path: shownPath, entries: count },
    };
  },
};
