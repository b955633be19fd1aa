import { pathToFileURL } from 'node:url';
import type { ToolImplementation } from '../tool-implementation.js';
import { isWorkerTool, toToolImplementation, type WorkerTool } from './worker-tools.js';

/** A tool module that cannot be loaded or exports no tool. */
export class ToolModuleError extends Error {
  override name = 'ToolModuleError';
}

/** The tools among a module's exports: each export that is a tool, or an array of tools. */
function exportedTools(exports: Record<string, unknown>): WorkerTool[] {
  const found: WorkerTool[] = [];
  const add = (value: unknown) => {
    if (isWorkerTool(value) && !found.includes(value)) found.push(value);
  };
  // The default export first, so that its order is the order the model sees.
  for (const key of ['default', ...Object.keys(exports).filter((key) => key !== 'default')]) {
    const value = exports[key];
    if (Array.isArray(value)) value.forEach(add);
    else add(value);
  }
  return found;
}

/**
 * Imports a tool module (an ES module, or CommonJS, of JavaScript) by absolute path and returns
 * its tools: every export that is a tool made by `defineTool` or a Pi `AgentTool`, or an array of
 * them (other exports are ignored). Fails with a {@link ToolModuleError} when the import fails or
 * no tool is exported.
 */
export async function loadToolModule(path: string): Promise<ToolImplementation[]> {
  let exports: Record<string, unknown>;
  try {
    exports = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (error) {
    throw new ToolModuleError(`Tool module ${path} cannot be loaded (${(error as Error).message})`);
  }
  const tools = exportedTools(exports);
  if (tools.length === 0) {
    throw new ToolModuleError(
      `Tool module ${path} exports no tool (export tools made by defineTool, or Pi AgentTools)`,
    );
  }
  return tools.map(toToolImplementation);
}
