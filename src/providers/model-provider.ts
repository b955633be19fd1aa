import type { AssistantMessage, ModelRequest } from '../core/index.js';

/** What a provider gets besides the request. Worker side only. */
export interface ModelCallContext {
  /** Aborted when the job is cancelled: stop the request and return or throw promptly. */
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
}

/**
 * A model behind a `--model provider:id` name.
 *
 * Contract: resolve with one assistant message. Bound your own silence: the call's heartbeat
 * goes on while the worker lives, so a request to a server that stopped sending waits for the
 * model call's 10-minute limit, on each attempt. The built-in providers stop a request that gets
 * nothing for `DAR_MODEL_IDLE_TIMEOUT` (5 minutes by default) and throw a retryable error; a
 * provider of your own can do the same with `watchIdle(modelIdleTimeoutFrom(), abort)`,
 * touching the watch as data arrives. A provider-side failure that retrying cannot
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
