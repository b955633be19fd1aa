import type { ToolImplementation } from '../tools/tool-implementation.js';
import { callModel } from './call-model.js';
import { makeExecuteTool } from './execute-tool.js';

export type { CallModelInput } from './call-model.js';
export type { ExecuteToolInput } from './execute-tool.js';

/** The activities a worker registers, with the tool bodies it can run. */
export function createActivities(tools: Iterable<ToolImplementation>) {
  const byName = new Map<string, ToolImplementation>();
  for (const tool of tools) byName.set(tool.spec.name, tool);
  return { callModel, executeTool: makeExecuteTool(byName) };
}

export type AgentActivities = ReturnType<typeof createActivities>;
