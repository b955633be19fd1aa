import { readFile } from 'node:fs/promises';
import { defineTool, resolveWorkspacePath, Type } from 'durable-agent-runner/tools';

/** Counts the words of a file in the job's workspace. Reading twice is harmless: replay-safe. */
export const wordCount = defineTool({
  name: 'word_count',
  description: 'Counts the words of a text file in the workspace.',
  parameters: Type.Object({ path: Type.String({ description: 'File path in the workspace.' }) }),
  replay: 'safe',
  async execute({ path }, context) {
    const text = await readFile(await resolveWorkspacePath(context.workspace, path), 'utf8');
    const words = text.split(/\s+/).filter((word) => word !== '').length;
    return { content: [{ type: 'text', text: `${path} has ${words} words` }] };
  },
});
