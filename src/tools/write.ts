import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { throwIfAborted } from './abort.js';
import { describeFileError } from './file-errors.js';
import { writeToolSpec } from './specs/write.js';
import type { ToolImplementation } from './tool-implementation.js';
import { resolveWorkspacePath } from './workspace-path.js';

export const writeTool: ToolImplementation<typeof writeToolSpec> = {
  spec: writeToolSpec,
  async execute(args, context) {
    const path = await resolveWorkspacePath(context.workspace, args.path);
    const bytes = Buffer.byteLength(args.content, 'utf8');
    // Checked once before writing, not during: a write cut off halfway would corrupt the file.
    throwIfAborted(context.signal);
    try {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, args.content, 'utf8');
    } catch (error) {
      throw describeFileError(error, args.path);
    }
    return {
      content: [{ type: 'text', text: `Wrote ${bytes} bytes to ${args.path}` }],
      details: { path: args.path, bytes },
    };
  },
};
