import type { TSchema } from '@sinclair/typebox';
import type {
  ToolActivityOptions,
  ToolExecutionMode,
  ToolReplay,
  ToolSpec,
} from '../../core/index.js';

/**
 * The workflow half of a tool that is not in the workflow bundle (a tool given to the worker:
 * `defineTool`, a Pi `AgentTool`, `dar worker --tools`), as plain JSON. The worker that runs a
 * job's first workflow task describes the job's tools through a local activity, so the
 * description is recorded in the job's history and a replay reads it from there. Workflow-safe.
 */
export interface ToolDescription {
  name: string;
  label: string;
  description: string;
  /** JSON Schema: the tool's TypeBox schema without its symbol-keyed metadata. */
  parameters: Record<string, unknown>;
  executionMode?: ToolExecutionMode;
  /** Unset means `unsafe`, as for every tool. */
  replay?: ToolReplay;
  activity?: ToolActivityOptions;
  /**
   * The tool has an argument shim (R7). It is a function of the worker's code, so the
   * workflow runs it on the worker as a local activity, whose result history records.
   */
  prepareArguments?: true;
}

/** What the worker answers for the tool names a job asks about. */
export interface DescribedTools {
  tools: ToolDescription[];
  /** Names this worker has no tool for. */
  unknown: string[];
}

/**
 * The description of a tool's spec. `$id` is dropped from the schema's root: validators are
 * compiled once per schema object and an id may not be registered twice in one validator.
 */
export function describeToolSpec(spec: ToolSpec): ToolDescription {
  const parameters = JSON.parse(JSON.stringify(spec.parameters)) as Record<string, unknown>;
  delete parameters.$id;
  const description: ToolDescription = {
    name: spec.name,
    label: spec.label,
    description: spec.description,
    parameters,
  };
  if (spec.executionMode !== undefined) description.executionMode = spec.executionMode;
  if (spec.replay !== undefined) description.replay = spec.replay;
  if (spec.activity !== undefined) {
    description.activity = JSON.parse(JSON.stringify(spec.activity)) as ToolActivityOptions;
  }
  if (spec.prepareArguments) description.prepareArguments = true;
  return description;
}

/**
 * The spec the preflight uses for a described tool; `shim` runs the worker's argument shim
 * (in a job: a local activity).
 */
export function specOfDescription(
  description: ToolDescription,
  shim: (toolName: string, rawArguments: unknown) => Promise<unknown>,
): ToolSpec {
  const spec: ToolSpec = {
    name: description.name,
    label: description.label,
    description: description.description,
    parameters: description.parameters as TSchema,
  };
  if (description.executionMode !== undefined) spec.executionMode = description.executionMode;
  if (description.replay !== undefined) spec.replay = description.replay;
  if (description.activity !== undefined) spec.activity = description.activity;
  if (description.prepareArguments) {
    spec.prepareArguments = (rawArguments) => shim(description.name, rawArguments);
  }
  return spec;
}
