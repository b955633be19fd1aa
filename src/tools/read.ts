import { readFile } from 'node:fs/promises';
import { DEFAULT_READ_LIMIT, readToolSpec } from './specs/read.js';
import { describeFileError } from './file-errors.js';
import type { ToolImplementation } from './tool-implementation.js';
import { resolveWorkspacePath } from './workspace-path.js';

/** A longer line is cut: one minified line must not flood the model's context. */
const MAX_LINE_LENGTH = 2000;

/** `cat -n` style: the number right-aligned in six columns, a tab, the line. */
function numberLine(line: string, lineNumber: number): string {
  const shown =
    line.length > MAX_LINE_LENGTH
      ? `${line.slice(0, MAX_LINE_LENGTH)}… [line cut at ${MAX_LINE_LENGTH} characters]`
      : line;
  return `${String(lineNumber).padStart(6)}\t${shown}`;
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  // A final newline ends the last line; it does not start an empty one.
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

export const readTool: ToolImplementation<typeof readToolSpec> = {
  spec: readToolSpec,
  async execute(args, context) {
    const path = await resolveWorkspacePath(context.workspace, args.path);
    const text = await readFile(path, { encoding: 'utf8', signal: context.signal }).catch(
      (error: unknown) => {
        throw describeFileError(error, args.path);
      },
    );
    const lines = splitLines(text);
    const offset = args.offset ?? 1;
    const limit = args.limit ?? DEFAULT_READ_LIMIT;
    const details = { path: args.path, totalLines: lines.length };

    if (lines.length === 0) {
      return { content: [{ type: 'text', text: `(${args.path} is empty)` }], details };
    }
    if (offset > lines.length) {
      throw new Error(
        `Offset ${offset} is past the end of ${args.path}, which has ${lines.length} lines`,
      );
    }
    const selected = lines.slice(offset - 1, offset - 1 + limit);
    const lastLine = offset + selected.length - 1;
    let output = selected.map((line, index) => numberLine(line, offset + index)).join('\n');
    if (lastLine < lines.length) {
      output +=
        `\n\n[Showing lines ${offset}-${lastLine} of ${lines.length}. ` +
        `Use offset=${lastLine + 1} to read on.]`;
    }
    return {
      content: [{ type: 'text', text: output }],
      details: { ...details, firstLine: offset, lastLine },
    };
  },
};
