import type { Static, TSchema } from '@sinclair/typebox';
import type { ToolExecutionResult, ToolSpec } from '../../core/index.js';
import type { ToolExecutionContext, ToolImplementation } from '../tool-implementation.js';

/** A tool's arguments: `Static<>` of a TypeBox schema; a plain JSON Schema gives an object. */
export type ToolArgumentsOf<TParameters> = TParameters extends TSchema
  ? Static<TParameters>
  : Record<string, unknown>;

/**
 * A tool in one object: its workflow-safe half (everything of `ToolSpec`) and its body.
 * `parameters` is a TypeBox schema or a plain JSON Schema object.
 */
export interface ToolDefinition<TParameters extends object = TSchema> extends Omit<
  ToolSpec,
  'parameters' | 'label'
> {
  /** Shown to people (events, the console); default: the name. */
  label?: string;
  parameters: TParameters;
  /**
   * The body, run on a worker as an activity (see `ToolImplementation` for its contract):
   * resolve with the result, throw an Error whose message tells the model what went wrong,
   * honour `context.signal`. Unless `replay` is `safe`, it runs at most once per call.
   */
  execute(
    args: ToolArgumentsOf<TParameters>,
    context: ToolExecutionContext,
  ): Promise<ToolExecutionResult>;
}

/**
 * Defines a tool for `createAgentWorker({ tools })` or a module of `dar worker --tools`. Its
 * workflow half reaches jobs through the worker (see `ToolDescription`), so no workflow bundle
 * has to be built; a job names it in its input's `tools`. `replay` defaults to `unsafe`.
 */
export function defineTool<TParameters extends object>(
  definition: ToolDefinition<TParameters>,
): ToolImplementation {
  const { label, parameters, ...rest } = definition;
  delete (rest as Partial<typeof rest>).execute;
  const spec: ToolSpec = {
    ...rest,
    label: label ?? definition.name,
    parameters: parameters as unknown as TSchema,
  };
  return {
    spec,
    execute: (args, context) => definition.execute(args as ToolArgumentsOf<TParameters>, context),
  };
}
