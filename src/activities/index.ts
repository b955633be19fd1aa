import { createFileToolJournal, toolJournalFolder } from '../tools/file-tool-journal.js';
import type { ToolImplementation } from '../tools/tool-implementation.js';
import type { ToolJournal } from '../tools/tool-journal.js';
import { callModel } from './call-model.js';
import { makeExecuteTool } from './execute-tool.js';

export type { CallModelInput } from './call-model.js';
export type { ExecuteToolInput } from './execute-tool.js';

/**
 * The activities a worker registers, with the tool bodies it can run and the journal they share
 * (default: the files under {@link toolJournalFolder}).
 */
export function createActivities(
  tools: Iterable<ToolImplementation>,
  journal: ToolJournal = createFileToolJournal(toolJournalFolder()),
) {
  const byName = new Map<string, ToolImplementation>();
  for (const tool of tools) byName.set(tool.spec.name, tool);
  return { callModel, executeTool: makeExecuteTool(byName, journal) };
}

export type AgentActivities = ReturnType<typeof createActivities>;
