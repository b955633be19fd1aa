/**
 * `durable-agent-runner/tools`: what a tool module needs. A module of tools for
 * `dar worker --tools ./my-tools.js` exports tools made by `defineTool` (or Pi `AgentTool`s).
 */
export {
  defineTool,
  type ToolArgumentsOf,
  type ToolDefinition,
} from '../tools/user/define-tool.js';
export {
  fromPiAgentTool,
  isPiAgentTool,
  type PiAgentTool,
  type PiAgentToolResult,
  type PiToolOptions,
} from '../tools/user/pi-agent-tool.js';
export { ToolRegistrationError, type WorkerTool } from '../tools/user/worker-tools.js';
export { loadToolModule, ToolModuleError } from '../tools/user/tool-module.js';
export type { ToolExecutionContext, ToolImplementation } from '../tools/tool-implementation.js';
export { RetryableToolError } from '../tools/retryable-tool-error.js';
export { ABSENT, type ToolJournal, type ToolJournalEntry } from '../tools/tool-journal.js';
export {
  changeFileOnce,
  type FileChangeRequest,
  type PlannedChange,
} from '../tools/file-change-once.js';
export { writeFileAtomically } from '../tools/atomic-write.js';
export { resolveWorkspacePath } from '../tools/workspace-path.js';
export { builtinTools } from '../tools/index.js';
export type {
  Duration,
  ToolActivityOptions,
  ToolExecutionMode,
  ToolExecutionResult,
  ToolReplay,
  ToolRetryPolicy,
  ToolSpec,
} from '../core/tool-spec.js';
export type { ToolResultContent } from '../core/messages.js';
/** TypeBox's builder, for tool parameters (any TypeBox, or plain JSON Schema, works as well). */
export { Type, type Static, type TSchema } from '@sinclair/typebox';
