import type { Static, TSchema } from '@sinclair/typebox';
import type { ToolResultContent, Usage } from './messages.js';

/** A duration as Temporal accepts it: milliseconds, or a string such as `"30s"` or `"5m"`. */
export type Duration = number | string;

export interface ToolRetryPolicy {
  initialInterval?: Duration;
  backoffCoefficient?: number;
  maximumInterval?: Duration;
  /**
   * 1 means no retry. Unset means Temporal's default (unlimited within the timeouts). Honoured
   * only for a tool whose `replay` is `safe`; any other tool gets one attempt.
   */
  maximumAttempts?: number;
  nonRetryableErrorTypes?: string[];
}

/** How the durable runner schedules this tool's body as an activity. */
export interface ToolActivityOptions {
  startToCloseTimeout?: Duration;
  scheduleToCloseTimeout?: Duration;
  /** A body that runs longer than this without a heartbeat is considered lost and retried. */
  heartbeatTimeout?: Duration;
  retry?: ToolRetryPolicy;
}

export type ToolExecutionMode = 'sequential' | 'parallel';

/**
 * Whether running a tool's body again after a lost attempt (dead worker, hung body) is harmless.
 *
 * - `safe`: a second run gives the same outcome as one run (a read, or a write that checks what
 *   it already did, see `ToolExecutionContext.journal`). Retried by the tool's retry policy.
 * - `unsafe`: a second run could repeat a side effect. Never retried (one attempt, whatever the
 *   retry policy says); a lost attempt becomes an error result that tells the model the call
 *   may have partially run.
 */
export type ToolReplay = 'safe' | 'unsafe';

/**
 * The workflow-safe half of a tool: everything the preflight needs, nothing that touches the
 * file system or the network. The body is registered with the worker under the same `name`.
 */
export interface ToolSpec<TParameters extends TSchema = TSchema> {
  name: string;
  label: string;
  description: string;
  /** The single source of truth for the tool's input; the body receives `Static<parameters>`. */
  parameters: TParameters;
  /**
   * Compatibility shim (R7): turns raw arguments of an older shape into the current one.
   *
   * Contract: a pure function of its input (it runs in workflow code and is replayed); it must
   * not mutate its input; its output is validated against `parameters` next, so it is never a
   * way around the schema. Throwing is allowed: the message becomes the call's error result.
   * It may return a promise: a tool given to the worker (not in the workflow bundle) has its
   * shim run on the worker, as a local activity whose result the job's history records.
   */
  prepareArguments?: (rawArguments: unknown) => unknown;
  /** `sequential` makes every batch that calls this tool run one call at a time (R13). */
  executionMode?: ToolExecutionMode;
  /** Unset means `unsafe`: only a tool that declares itself `safe` is ever run twice. */
  replay?: ToolReplay;
  activity?: ToolActivityOptions;
}

export type ToolArguments<TSpec extends ToolSpec> = Static<TSpec['parameters']>;

/** What a tool body returns (and what `afterToolCall` may override, field by field). */
export interface ToolExecutionResult {
  content: ToolResultContent[];
  details?: unknown;
  /**
   * What the tool's own work cost (a tool that calls a model, say). Carried on the tool result
   * message; not counted in the run's model usage or budget.
   */
  usage?: Usage;
  /** When every result of a batch says so, the run stops after that batch (R18). */
  terminate?: boolean;
  /** Set by a host that stores results: see `ToolResultMessage.contentRef`. */
  contentRef?: string;
}

/** The description of a tool that is sent to the model. Plain JSON. */
export interface ToolDescriptor {
  name: string;
  description: string;
  parameters: unknown;
}

export function describeTool(tool: ToolSpec): ToolDescriptor {
  // JSON round trip drops TypeBox's symbol-keyed metadata; the model sees plain JSON Schema.
  return {
    name: tool.name,
    description: tool.description,
    parameters: JSON.parse(JSON.stringify(tool.parameters)) as unknown,
  };
}

/**
 * Whether two descriptor lists say the same to the model: same names, descriptions and
 * parameter schemas in the same order (schemas compared as JSON text, so two equal schemas whose
 * keys come in another order count as different: a safe answer, never a wrong "same").
 */
export function sameToolDescriptors(
  first: readonly ToolDescriptor[],
  second: readonly ToolDescriptor[],
): boolean {
  if (first === second) return true;
  if (first.length !== second.length) return false;
  return first.every((descriptor, index) => {
    const other = second[index];
    return (
      other !== undefined &&
      descriptor.name === other.name &&
      descriptor.description === other.description &&
      JSON.stringify(descriptor.parameters) === JSON.stringify(other.parameters)
    );
  });
}
