import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { quoteBounded } from '../core/index.js';
import { describeFileError } from './file-errors.js';
import { changeFileOnce } from './file-change-once.js';
import { writeToolSpec } from './specs/write.js';
import type { ToolImplementation } from './tool-implementation.js';
import { resolveWorkspacePath } from './workspace-path.js';

export const writeTool: ToolImplementation<typeof writeToolSpec> = {
  spec: writeToolSpec,
  async execute(args, context) {
    // Resolving drops a trailing slash: `notes/` would become a file named `notes`.
    if (args.path.endsWith('/')) {
      throw new Error(
        `Path "${quoteBounded(args.path)}" ends with a slash, so it names a folder; ` +
          'write takes the path of a file (the folders above it are made as needed)',
      );
    }
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
