import { bashTool } from './bash.js';
import { editTool } from './edit.js';
import { lsTool } from './ls.js';
import { readTool } from './read.js';
import type { ToolImplementation } from './tool-implementation.js';
import { writeTool } from './write.js';

export { bashTool } from './bash.js';
export { editTool } from './edit.js';
export { lsTool } from './ls.js';
export { readTool } from './read.js';
export { writeTool } from './write.js';
export { resolveWorkspacePath } from './workspace-path.js';
export type { ToolExecutionContext, ToolImplementation } from './tool-implementation.js';
export { ABSENT, type ToolJournal, type ToolJournalEntry } from './tool-journal.js';
export { createFileToolJournal, toolJournalFolder } from './file-tool-journal.js';
export { changeFileOnce, type FileChangeRequest, type PlannedChange } from './file-change-once.js';
export { writeFileAtomically } from './atomic-write.js';

/** The built-in tools' worker-side halves, by name (the same names as `builtinToolSpecs`). */
export const builtinTools = {
  read: readTool,
  write: writeTool,
  edit: editTool,
  ls: lsTool,
  bash: bashTool,
} as const satisfies Record<string, ToolImplementation>;

/** The same bodies as a list, ready for `createActivities`. */
export const builtinToolList: readonly ToolImplementation[] = Object.values(builtinTools);
