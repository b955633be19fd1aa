import { resolve } from 'node:path';
import { isToolModuleEntry, type ToolModuleNames } from '../job-input/build-job-input.js';
import type { ToolImplementation } from '../tools/tool-implementation.js';
import { ToolModuleError, loadToolModule } from '../tools/user/tool-module.js';
import { UsageError } from './usage-error.js';

/** Tool modules by absolute path, each with its tools. */
export type ToolModules = ReadonlyMap<string, readonly ToolImplementation[]>;

/** The module entries of a comma-separated tool list, as absolute paths. */
export function toolModulePaths(list: string | undefined, cwd: string): string[] {
  if (list === undefined) return [];
  return list
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '' && isToolModuleEntry(entry))
    .map((entry) => resolve(cwd, entry));
}

/** Loads each module once; a module that fails to load or exports no tool is a usage error. */
export async function loadToolModules(paths: Iterable<string>): Promise<ToolModules> {
  const modules = new Map<string, readonly ToolImplementation[]>();
  for (const path of paths) {
    if (modules.has(path)) continue;
    try {
      modules.set(path, await loadToolModule(path));
    } catch (error) {
      if (error instanceof ToolModuleError) throw new UsageError(error.message);
      throw error;
    }
  }
  return modules;
}

/** Every tool of the loaded modules, for a worker. */
export function toolsOfModules(modules: ToolModules): ToolImplementation[] {
  return [...modules.values()].flat();
}

/** The tool names of each module, for `buildJobInput`. */
export function toolNamesOfModules(modules: ToolModules): ToolModuleNames {
  return new Map(
    [...modules].map(([path, tools]) => [path, tools.map((tool) => tool.spec.name)] as const),
  );
}

/**
 * `dar worker --tools`: every entry is a module path (a bare `my-tools.js` is the current
 * folder's), and a built-in tool's name is refused: a worker always runs the built-in tools.
 */
export function toolModuleList(list: string | undefined, cwd: string): string[] {
  if (list === undefined) return [];
  const entries = list
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const names = entries.filter((entry) => !isToolModuleEntry(entry));
  if (names.length > 0) {
    throw new UsageError(
      `dar worker --tools takes tool modules (./my-tools.js), not tool names: ${names.join(', ')}`,
    );
  }
  return entries.map((entry) => resolve(cwd, entry));
}
