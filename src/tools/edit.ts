import { applyEdits } from './apply-edits.js';
import { changeFileOnce } from './file-change-once.js';
import { MAXIMUM_FILE_BYTES } from './regular-file.js';
import { editToolSpec } from './specs/edit.js';
import type { ToolImplementation } from './tool-implementation.js';
import { resolveWorkspacePath } from './workspace-path.js';

export const editTool: ToolImplementation<typeof editToolSpec> = {
  spec: editToolSpec,
  async execute(args, context) {
    const path = await resolveWorkspacePath(context.workspace, args.path);
    const count = args.edits.length;
    return changeFileOnce(
      {
        path,
        displayPath: args.path,
        maximumCurrentBytes: MAXIMUM_FILE_BYTES,
        plan(current) {
          if (current === undefined) throw new Error(`File not found: ${args.path}`);
          return {
            content: applyEdits(current, args.edits, args.path),
            result: {
              content: [
                {
                  type: 'text',
                  text: `Applied ${count} edit${count === 1 ? '' : 's'} to ${args.path}`,
                },
              ],
              details: { path: args.path, edits: count },
            },
          };
        },
      },
      context,
    );
  },
};
