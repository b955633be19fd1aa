import { readFile, writeFile } from 'node:fs/promises';
import { applyEdits } from './apply-edits.js';
import { throwIfAborted } from './abort.js';
import { describeFileError } from './file-errors.js';
import { editToolSpec } from './specs/edit.js';
import type { ToolImplementation } from './tool-implementation.js';
import { resolveWorkspacePath } from './workspace-path.js';

export const editTool: ToolImplementation<typeof editToolSpec> = {
  spec: editToolSpec,
  async execute(args, context) {
    const path = await resolveWorkspacePath(context.workspace, args.path);
    let text: string;
    try {
      text = await readFile(path, { encoding: 'utf8', signal: context.signal });
    } catch (error) {
      throw describeFileError(error, args.path);
    }
    const edited = applyEdits(text, args.edits, args.path);
    // Checked once before writing, not during: a write cut off halfway would corrupt the file.
    throwIfAborted(context.signal);
    try {
      await writeFile(path, edited, 'utf8');
    } catch (error) {
      throw describeFileError(error, args.path);
    }
    const count = args.edits.length;
    return {
      content: [
        { type: 'text', text: `Applied ${count} edit${count === 1 ? '' : 's'} to ${args.path}` },
      ],
      details: { path: args.path, edits: count },
    };
  },
};
