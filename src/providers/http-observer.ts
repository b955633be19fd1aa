import { AsyncLocalStorage } from 'node:async_hooks';
import { streamErrorIn, type StreamError } from './stream-error.js';

/**
 * Lets a model call see the HTTP status and `Retry-After` of the responses its provider SDK got.
 *
 * Why: pi-ai reports a failed request as an assistant message whose `errorMessage` is the SDK
 * error's text; the status is only in that text and the response headers are gone, so a 429's
 * `Retry-After` could not be honoured. The Anthropic and OpenAI SDKs (which pi-ai creates per
 * call) use the global `fetch`; this module wraps it once with a pass-through that, only inside
 * {@link observeResponses}, records each response's status and retry hint for that call alone
 * (AsyncLocalStorage keeps concurrent calls apart). Request headers are not touched and no
 * content is kept, so no key or content passes through here. When the call asks for it, the
 * arrival of each chunk of a body is told (not its bytes), which is how a stalled stream is seen,
 * and the body is searched for the API's end-of-stream marker, which is how a cut one is seen,
 * and its last lines for an error event, whose type says whether a retry may help.
 */

export interface ObservedResponse {
  status: number;
  /** From `retry-after-ms` or `retry-after` (seconds or an HTTP date), when present. */
  retryAfterMs?: number;
  /** The response's `content-type`, when it has one. */
  contentType?: string;
  /** Whether the body held the call's end-of-stream marker (see `ObserveOptions.endOfStream`). */
  endSeen?: boolean;
  /** Set when a line of the body passed `MAXIMUM_STREAM_LINE_BYTES`: its read was failed. */
  lineTooLong?: boolean;
  /** An error event the body ended with (see `streamErrorIn`). */
  streamError?: StreamError;
}

/** What a call asks of the observation of its responses. */
export interface ObserveOptions {
  /** Hears every sign of life: each response's headers and each chunk of a successful body. */
  onData?: () => void;
  /**
   * The text with which the API's stream says the answer is complete (Chat Completions'
   * `finish_reason` or `[DONE]`): looked for in each successful body, as `endSeen`. A stream
   * cut short (a proxy's timeout, a server that crashed) can end as cleanly as a whole one.
   */
  endOfStream?: RegExp;
}

/**
 * The longest line a successful body may have, in bytes. A stream's events are lines, and the
 * SDKs buffer a line until it ends (re-reading the buffer as each chunk comes): a server that
 * sends one endless line would fill the worker's memory, and pin its CPU, before the
 * streamed-answer limit (which counts parsed deltas) ever sees a character. No answer is lost to
 * it: an event holding more than the model answer's limit (1 Mi characters) would fail that
 * limit anyway, and 1 Mi characters take at most 6 MiB even escaped as JSON.
 */
export const MAXIMUM_STREAM_LINE_BYTES = 8 * 1024 * 1024;

/** Characters of a body kept from one chunk to the next, so that a marker split across two is found. */
const MARKER_OVERLAP = 64;
/** Characters of a body's end kept to read an error event from (bounded; never stored). */
const ENDING_KEPT = 8 * 1024;

/** What one call observes: its responses, and what it asked for. */
interface CallObservation extends ObserveOptions {
  responses: ObservedResponse[];
}

const calls = new AsyncLocalStorage<CallObservation>();
const WRAPPED = Symbol.for('durable-agent-runner.observed-fetch');

type Fetch = typeof globalThis.fetch;

/** Milliseconds to wait according to a response's retry headers; undefined when none. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const milliseconds = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number.parseFloat(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function installFetchWrapper(): void {
  const current = globalThis.fetch as Fetch & { [WRAPPED]?: true };
  if (typeof current !== 'function' || current[WRAPPED]) return;
  const observed = (async (...args: Parameters<Fetch>) => {
    const response = await current(...args);
    const call = calls.getStore();
    if (call) {
      const entry: ObservedResponse = { status: response.status };
      const wait = retryAfterMs(response.headers);
      if (wait !== undefined) entry.retryAfterMs = wait;
      const contentType = response.headers.get('content-type');
      if (contentType !== null) entry.contentType = contentType;
      call.responses.push(entry);
      call.onData?.();
      if (response.ok) watchBody(response, entry, call);
    }
    return response;
  }) as Fetch & { [WRAPPED]?: true };
  observed[WRAPPED] = true;
  globalThis.fetch = observed;
}

/**
 * Watches a successful response's body as the SDK reads it: `onData` hears each chunk, the
 * end-of-stream marker is looked for, a line past `MAXIMUM_STREAM_LINE_BYTES` fails the read, and
 * an error event at its end is kept as `streamError`.
 * The body is passed through unchanged; only `body` is replaced on this one response, the first
 * time it is read (an SDK reads a stream's `body`, an error's `text()`, never both).
 */
function watchBody(response: Response, entry: ObservedResponse, call: CallObservation): void {
  const original = response.body;
  if (!original) return;
  const { onData, endOfStream } = call;
  if (endOfStream) entry.endSeen = false;
  const decoder = new TextDecoder();
  let ending = '';
  let errorKeySeen = false;
  let lineBytes = 0;
  let watched: ReadableStream<Uint8Array> | undefined;
  Object.defineProperty(response, 'body', {
    configurable: true,
    get() {
      watched ??= original.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            onData?.();
            const lastNewline = chunk.lastIndexOf(0x0a);
            lineBytes =
              lastNewline === -1 ? lineBytes + chunk.length : chunk.length - lastNewline - 1;
            if (lineBytes > MAXIMUM_STREAM_LINE_BYTES) {
              entry.lineTooLong = true;
              controller.error(
                new Error(`A line of the response passed ${MAXIMUM_STREAM_LINE_BYTES} bytes`),
              );
              return;
            }
            const text = decoder.decode(chunk, { stream: true });
            const recent = ending.slice(-MARKER_OVERLAP) + text;
            if (endOfStream && !entry.endSeen) entry.endSeen = endOfStream.test(recent);
            ending = (ending + text).slice(-ENDING_KEPT);
            // Read as it comes (the SDK stops reading at the error event, so no flush follows);
            // once an error key has come, over the kept ending, as an event may come in pieces.
            errorKeySeen ||= recent.includes('"error"');
            if (errorKeySeen && !entry.streamError) {
              const streamError = streamErrorIn(ending);
              if (streamError) entry.streamError = streamError;
            }
            controller.enqueue(chunk);
          },
        }),
      );
      return watched;
    },
  });
}

/**
 * Runs `work` and returns what it resolved with and the HTTP responses received meanwhile, in
 * order. Install happens before `work` starts, so SDK clients created inside it see the wrapper.
 * See `ObserveOptions` for what else is watched.
 */
export async function observeResponses<T>(
  work: () => Promise<T>,
  options: ObserveOptions = {},
): Promise<{ result: T; responses: ObservedResponse[] }> {
  installFetchWrapper();
  const responses: ObservedResponse[] = [];
  const result = await calls.run({ ...options, responses }, work);
  return { result, responses };
}
