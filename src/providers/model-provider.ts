import type { AssistantMessage, ModelRequest } from '../core/index.js';

/** What a provider gets besides the request. Worker side only. */
export interface ModelCallContext {
  /**
   * Aborted when the job is cancelled, or when a provider that reports signs of life has been
   * silent too long (see `ModelProvider.reportsSignsOfLife`): stop the request and return or
   * throw promptly.
   */
  signal: AbortSignal;
  /** Tells Temporal the call is alive (and lets it deliver a cancellation). */
  heartbeat(details?: unknown): void;
  /**
   * Which model call of the job this is, from 0, when the host knows it: stable across retries
   * and replays, and unaffected by what the transcript holds (compaction may shorten it).
   */
  callIndex?: number;
  /**
   * Hears each event of the answer as the provider streams it, in Pi's `AssistantMessageEvent`
   * shapes (`text_delta`, `toolcall_delta`, ...), for followers of the job. Optional: a
   * provider that does not stream never calls it. Contract: returns at once and never throws;
   * what it hears never changes the answer.
   */
  onStreamEvent?: (event: unknown) => void;
  /**
   * Something came from the model's server (a response's headers, a chunk of its body, a
   * keep-alive): the silence the runner watches starts again. Set by the runner when the
   * provider has `reportsSignsOfLife` and a limit is on (call it as `context.signOfLife?.()`).
   * Contract: returns at once and never throws.
   */
  signOfLife?: () => void;
}

/**
 * A model behind a `--model provider:id` name.
 *
 * Contract: resolve with one assistant message. Bound its silence: the call's heartbeat goes on
 * while the worker lives, so a request to a server that stopped sending waits for the model
 * call's 10-minute limit, on each attempt. The built-in providers stop a request that gets
 * nothing for `DAR_MODEL_IDLE_TIMEOUT` (5 minutes by default) and throw a retryable error. A
 * provider of your own gets the same from the runner by setting `reportsSignsOfLife` and calling
 * `context.signOfLife()` as data arrives; one that would rather keep the watch itself can use
 * `watchIdle(modelIdleTimeoutFrom(), abort)`. A provider-side failure that retrying cannot
 * fix (bad request, used-up script) is a message with `stopReason: "error"` and
 * `errorMessage`; a transient failure (network, rate limit) is a thrown error, which the
 * activity's retry policy retries. Secrets are read here, never taken from the request.
 */
export interface ModelProvider {
  call(request: ModelRequest, context: ModelCallContext): Promise<AssistantMessage>;
  /**
   * The model's context window in tokens, when the provider knows it (a job compacts its context
   * near it). Contract: must not throw for a missing key or base URL; undefined when unknown.
   */
  contextWindow?(): Promise<number | undefined>;
  /**
   * Set when `call` reports each arrival of data with `context.signOfLife()` (or streams its
   * events through `context.onStreamEvent`, which counts too). The runner then watches each
   * request: after `DAR_MODEL_IDLE_TIMEOUT` without a sign, it aborts `context.signal` and fails
   * the attempt with a retryable `ModelTransientError` naming the silence, whatever `call` then
   * throws, or returns as an `aborted` or `error` answer. Leave it unset when the provider
   * cannot see its bytes (a whole-answer SDK call): a provider that never reports would be
   * stopped after the limit on every request.
   */
  readonly reportsSignsOfLife?: boolean;
}

export interface ModelName {
  provider: string;
  id: string;
}

/** `scripted:demo.json` is `{ provider: 'scripted', id: 'demo.json' }`. */
export function parseModelName(name: string): ModelName {
  const separator = name.indexOf(':');
  if (separator <= 0 || separator === name.length - 1) {
    throw new Error(
      `Model "${name}" is not of the form provider:model-id (e.g. scripted:demo.json)`,
    );
  }
  return { provider: name.slice(0, separator), id: name.slice(separator + 1) };
}
