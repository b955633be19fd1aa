import type { Static } from '@sinclair/typebox';
import type { ToolExecutionResult, ToolSpec } from '../core/index.js';
import type { ToolJournal } from './tool-journal.js';

/** What a tool body gets besides its arguments. Worker side only. */
export interface ToolExecutionContext {
  /** Absolute path of the job's workspace; file tools resolve paths against it. */
  workspace: string;
  /** Aborted when the job is cancelled or the activity times out: stop promptly. */
  signal: AbortSignal;
  toolCallId: string;
  /**
   * Stable across retries of the same call (R24): use it to make side effects idempotent. In the
   * durable runner it is `<workflow id>/<model call count>/<tool call id>`; treat it as opaque.
   */
  idempotencyKey: string;
  /**
   * Durable record of applied changes by idempotency key: record a change before making it,
   * and look it up first, so that a second run returns the first result instead of applying
   * the change again (see `changeFileOnce` for the protocol the file tools follow).
   */
  journal: ToolJournal;
  /** Reports progress; in the durable runner it is an activity heartbeat. */
  heartbeat(details?: unknown): void;
  /**
   * Shows output of a running body to the job's followers (Pi's `onUpdate`; bash sends its
   * output lines as they come): each call carries the new output since the previous one. Not
   * part of the result and never in history; best effort. Optional: absent when nobody streams.
   * Contract: returns at once and never throws. With `options.whole`, `partialResult` is the
   * body's whole result so far instead (Pi's `onUpdate` semantics), replacing earlier updates.
   */
  onUpdate?: (
    partialResult: { content: { type: 'text'; text: string }[] },
    options?: { whole?: boolean },
  ) => void;
}

/**
 * The worker-side half of a tool: the body. Registered with the worker under `spec.name`.
 *
 * Contract: resolve with the result, or throw an Error whose message tells the model what went
 * wrong (R16); never report failure as plain result text. It must honour `signal`. A body whose
 * spec says `replay: 'safe'` may run more than once for one call (R24) and must make that
 * harmless (see `journal`); any other body runs at most once per call, and a lost run is
 * reported to the model as interrupted.
 */
export interface ToolImplementation<TSpec extends ToolSpec = ToolSpec> {
  spec: TSpec;
  execute(
    args: Static<TSpec['parameters']>,
    context: ToolExecutionContext,
  ): Promise<ToolExecutionResult>;
}
