import type { TSchema } from '@sinclair/typebox';
import type {
  ToolActivityOptions,
  ToolExecutionMode,
  ToolExecutionResult,
  ToolReplay,
  ToolResultContent,
} from '../../core/index.js';
import type { ToolImplementation } from '../tool-implementation.js';

/** A partial or final result of a Pi tool (`AgentToolResult` of `@mariozechner/pi-agent-core`). */
export interface PiAgentToolResult {
  content: ToolResultContent[];
  details: unknown;
  terminate?: boolean;
}

/**
 * A tool as `@mariozechner/pi-agent-core` defines it (`AgentTool`), described by its shape so
 * that any Pi version's objects fit and this package does not depend on Pi's. `parameters` is a
 * TypeBox schema (of `typebox` or `@sinclair/typebox`): plain JSON Schema with symbol-keyed
 * metadata.
 */
export interface PiAgentTool {
  name: string;
  label: string;
  description: string;
  parameters: object;
  /** Pi's argument shim (R7): raw arguments in, arguments of the current shape out. */
  prepareArguments?: (args: unknown) => unknown;
  /**
   * Pi's body. Contract (Pi's): resolve with the result, throw on failure; honour `signal`
   * (here: aborted when the job is cancelled or the attempt times out); `onUpdate` reports
   * the partial result so far (here: an activity heartbeat, and its text goes to the job's
   * live stream as a `tool_execution_update`, bounded and best effort; an update after
   * `execute` settled is ignored, as Pi does).
   */
  execute: (
    toolCallId: string,
    params: never,
    signal?: AbortSignal,
    onUpdate?: (partialResult: PiAgentToolResult) => void,
  ) => Promise<PiAgentToolResult>;
  executionMode?: ToolExecutionMode;
}

/** What Pi's tools do not say, and a durable run needs to know. */
export interface PiToolOptions {
  /**
   * The name jobs call it by, when not the tool's own: Pi's coding tools are named like the
   * built-in ones (`read`, `edit`), and a worker refuses a name taken twice.
   */
  name?: string;
  /** Default `unsafe`: after a lost attempt the call is answered "interrupted", not run again. */
  replay?: ToolReplay;
  activity?: ToolActivityOptions;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** Whether a value has the shape of a Pi `AgentTool` (as opposed to a `defineTool` tool). */
export function isPiAgentTool(value: unknown): value is PiAgentTool {
  return (
    isRecord(value) &&
    typeof value.name === 'string' &&
    typeof value.description === 'string' &&
    isRecord(value.parameters) &&
    typeof value.execute === 'function' &&
    !('spec' in value)
  );
}

/**
 * A Pi `AgentTool`, unchanged, as a tool of this runner: its name, label, description, schema,
 * `prepareArguments` and `executionMode` make the workflow half (the shim runs on the worker,
 * see `ToolDescription`); its `execute` is the body, called with the call id, the validated
 * arguments, the activity's abort signal and an `onUpdate` that heartbeats and publishes the
 * partial result's text to the job's live stream.
 */
export function fromPiAgentTool(
  tool: PiAgentTool,
  options: PiToolOptions = {},
): ToolImplementation {
  const spec: ToolImplementation['spec'] = {
    name: options.name ?? tool.name,
    label: tool.label ?? tool.name,
    description: tool.description,
    parameters: tool.parameters as TSchema,
  };
  if (tool.prepareArguments) {
    const shim = tool.prepareArguments.bind(tool);
    spec.prepareArguments = (rawArguments) => shim(rawArguments);
  }
  if (tool.executionMode !== undefined) spec.executionMode = tool.executionMode;
  if (options.replay !== undefined) spec.replay = options.replay;
  if (options.activity !== undefined) spec.activity = options.activity;
  return {
    spec,
    async execute(args, context): Promise<ToolExecutionResult> {
      // Partial results keep the attempt alive and reach followers live; only the final
      // result is stored. An update after the call settled is late: Pi ignores it too.
      let settled = false;
      const onUpdate = (partialResult: PiAgentToolResult) => {
        if (settled) return;
        context.heartbeat();
        context.onUpdate?.({ content: textBlocksOf(partialResult) }, { whole: true });
      };
      let result: PiAgentToolResult;
      try {
        result = await tool.execute(context.toolCallId, args as never, context.signal, onUpdate);
      } finally {
        settled = true;
      }
      const final: ToolExecutionResult = { content: result.content, details: result.details };
      if (result.terminate !== undefined) final.terminate = result.terminate;
      return final;
    },
  };
}

/** The text blocks of a partial result (what the live stream carries; images are left out). */
function textBlocksOf(partialResult: PiAgentToolResult): { type: 'text'; text: string }[] {
  const content: unknown = (partialResult as { content?: unknown } | null)?.content;
  if (!Array.isArray(content)) return [];
  return content.flatMap((block: unknown) => {
    const candidate = block as { type?: unknown; text?: unknown } | null;
    return candidate?.type === 'text' && typeof candidate.text === 'string'
      ? [{ type: 'text' as const, text: candidate.text }]
      : [];
  });
}
