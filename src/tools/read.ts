import { MAXIMUM_TOOL_OUTPUT_BYTES, quoteBounded } from '../core/index.js';
import { DEFAULT_READ_LIMIT, readToolSpec } from './specs/read.js';
import { describeFileError } from './file-errors.js';
import { readRegularFile } from './regular-file.js';
import type { ToolImplementation } from './tool-implementation.js';
import { utf8Length } from './utf8-prefix.js';
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

/** Room kept for the continuation note under the tool output limit. */
const NOTE_ROOM_BYTES = 200;

/**
 * The numbered lines from `offset` on, as many as `limit` allows and as fit in the tool output
 * limit (whole lines: the note then names the exact `offset` to read on from). At least one line.
 */
function numberedLines(lines: string[], offset: number, limit: number): string[] {
  const budget = MAXIMUM_TOOL_OUTPUT_BYTES - NOTE_ROOM_BYTES;
  const shown: string[] = [];
  let bytes = 0;
  for (let index = offset - 1; index < lines.length && shown.length < limit; index += 1) {
    const numbered = numberLine(lines[index] ?? '', index + 1);
    // +1 for the newline that joins it to the previous line.
    bytes += utf8Length(numbered) + 1;
    if (shown.length > 0 && bytes > budget) break;
    shown.push(numbered);
  }
  return shown;
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
    const content = await readRegularFile(path, args.path, context.signal).catch(
      (error: unknown) => {
        throw describeFileError(error, args.path);
      },
    );
    const text = content.toString('utf8');
    const lines = splitLines(text);
    const offset = args.offset ?? 1;
    const limit = args.limit ?? DEFAULT_READ_LIMIT;
    const details = { path: args.path, totalLines: lines.length };

    if (lines.length === 0) {
      return {
        content: [{ type: 'text', text: `(${quoteBounded(args.path)} is empty)` }],
        details,
      };
    }
    if (offset > lines.length) {
      throw new Error(
        `Offset ${offset} is past the end of ${quoteBounded(args.path)}, ` +
          `which has ${lines.length} lines`,
      );
    }
    const shown = numberedLines(lines, offset, limit);
    const lastLine = offset + shown.length - 1;
    let output = shown.join('\n');
    if (lastLine < lines.length) {
      const reason =
        shown.length < limit ? ` (a result holds at most ${MAXIMUM_TOOL_OUTPUT_BYTES} bytes)` : '';
      output +=
        `\n\n[Showing lines ${offset}-${lastLine} of ${lines.length}${reason}. ` +
        `Use offset=${lastLine + 1} to read on.]`;
    }
    return {
      content: [{ type: 'text', text: output }],
      details: { ...details, firstLine: offset, lastLine },
    };
  },
};
