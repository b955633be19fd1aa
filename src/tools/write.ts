import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { describeFileError } from './file-errors.js';
import { changeFileOnce } from './file-change-once.js';
import { writeToolSpec } from './specs/write.js';
import type { ToolImplementation } from './tool-implementation.js';
import { resolveWorkspacePath } from './workspace-path.js';

export const writeTool: ToolImplementation<typeof writeToolSpec> = {
  spec: writeToolSpec,
  async execute(args, context) {
    const path = await resolveWorkspacePath(context.workspace, args.path);
    const bytes = Buffer.byteLength(args.content, 'utf8');
    try {
      await mkdir(dirname(path), { recursive: true });
    } catch (error) {
      throw describeFileError(error, args.path);
    }
    return changeFileOnce(
      {
        path,
        displayPath: args.path,
        plan: () => ({
          content: args.content,
          result: {
            content: [{ type: 'text', text: `Wrote ${bytes} bytes to ${args.path}` }],
            details: { path: args.path, bytes },
          },
        }),
      },
      context,
    );
  },
};
