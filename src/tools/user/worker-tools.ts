import {
  MAXIMUM_TOOL_DESCRIPTION_LENGTH,
  MAXIMUM_TOOL_NAME_LENGTH,
  messageOf,
  validatorFor,
} from '../../core/index.js';
import type { ToolImplementation } from '../tool-implementation.js';
import { fromPiAgentTool, isPiAgentTool, type PiAgentTool } from './pi-agent-tool.js';
import { describeToolSpec } from './tool-description.js';

/** A tool a worker can be given: one made by `defineTool` (or a `ToolImplementation`), or a Pi `AgentTool`. */
export type WorkerTool = ToolImplementation | PiAgentTool;

/** A tool a worker refuses at start (bad name, a name taken twice, a schema that does not compile). */
export class ToolRegistrationError extends Error {
  override name = 'ToolRegistrationError';
}

function isToolImplementation(value: unknown): value is ToolImplementation {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<ToolImplementation>;
  return (
    typeof candidate.execute === 'function' &&
    typeof candidate.spec === 'object' &&
    candidate.spec !== null &&
    typeof candidate.spec.name === 'string'
  );
}

/** Whether a value is a tool a worker can run (used to pick tools out of a module's exports). */
export function isWorkerTool(value: unknown): value is WorkerTool {
  return isToolImplementation(value) || isPiAgentTool(value);
}

/** The tool as this runner's two halves; a Pi `AgentTool` is adapted, unchanged. */
export function toToolImplementation(tool: WorkerTool): ToolImplementation {
  if (isToolImplementation(tool)) return tool;
  if (isPiAgentTool(tool)) return fromPiAgentTool(tool);
  throw new ToolRegistrationError('Not a tool: expected defineTool(...) or a Pi AgentTool');
}

/** Refuses a tool whose workflow half could not be recorded in a job's history or checked there. */
function checkTool(tool: ToolImplementation): void {
  const { name } = tool.spec;
  if (name === '' || name.length > MAXIMUM_TOOL_NAME_LENGTH) {
    throw new ToolRegistrationError(
      `Tool name "${name.slice(0, 40)}" must have 1 to ${MAXIMUM_TOOL_NAME_LENGTH} characters`,
    );
  }
  const description = describeToolSpec(tool.spec);
  const length = JSON.stringify(description).length;
  if (length > MAXIMUM_TOOL_DESCRIPTION_LENGTH) {
    throw new ToolRegistrationError(
      `Tool ${name}: its description and schema take ${length} characters of JSON, over the ` +
        `limit of ${MAXIMUM_TOOL_DESCRIPTION_LENGTH}`,
    );
  }
  try {
    validatorFor(description.parameters);
  } catch (error) {
    throw new ToolRegistrationError(
      `Tool ${name}: its parameters schema is invalid (${messageOf(error)})`,
    );
  }
}

/**
 * The tools a worker runs: the built-in ones, then `extra`, each checked. A name given twice
 * (or a built-in's name) is refused: a job must find one body under each name.
 */
export function workerToolList(
  builtin: readonly ToolImplementation[],
  extra: readonly WorkerTool[],
): ToolImplementation[] {
  const tools = [...builtin];
  const names = new Set(builtin.map((tool) => tool.spec.name));
  for (const given of extra) {
    const tool = toToolImplementation(given);
    checkTool(tool);
    if (names.has(tool.spec.name)) {
      throw new ToolRegistrationError(`Tool name ${tool.spec.name} is given twice`);
    }
    names.add(tool.spec.name);
    tools.push(tool);
  }
  return tools;
}
