import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Dirent } from 'node:fs';
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

export const lsTool: ToolImplementation<typeof lsToolSpec> = {
  spec: lsToolSpec,
  async execute(args, context) {
    const shownPath = args.path ?? '.';
    const folder = await resolveWorkspacePath(context.workspace, shownPath);
    let entries: Dirent[];
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch (error) {
      const code = errorCode(error);
      const cause = { cause: error };
      if (code === 'ENOTDIR') throw new Error(`${shownPath} is a file, not a folder`, cause);
      if (code === 'ENOENT') throw new Error(`Folder not found: ${shownPath}`, cause);
      throw describeFileError(error, shownPath);
    }
    const names = await Promise.all(
      entries.map(async (entry) =>
        (await isFolder(folder, entry)) ? `${entry.name}/` : entry.name,
      ),
    );
    // Code-unit order: the same on every machine, whatever its locale.
    names.sort((left, right) => (left < right ? -1 : left > right ? 1 : 0));
    const shown = names.slice(0, MAX_ENTRIES);
    let text = shown.length === 0 ? `(${shownPath} is empty)` : shown.join('\n');
    if (names.length > shown.length) {
      text += `\n\n[Showing ${shown.length} of ${names.length} entries.]`;
    }
    return {
      content: [{ type: 'text', text }],
      details: { path: shownPath, entries: names.length },
    };
  },
};
