import { AsyncLocalStorage } from 'node:async_hooks';

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
 * arrival of each chunk of a body is told (not its bytes), which is how a stalled stream is seen.
 */

export interface ObservedResponse {
  status: number;
  /** From `retry-after-ms` or `retry-after` (seconds or an HTTP date), when present. */
  retryAfterMs?: number;
}

/** What one call observes: its responses, and who hears that data arrived. */
interface CallObservation {
  responses: ObservedResponse[];
  onData: (() => void) | undefined;
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
      call.responses.push(entry);
      if (call.onData) {
        call.onData();
        if (response.ok) watchBody(response, call.onData);
      }
    }
    return response;
  }) as Fetch & { [WRAPPED]?: true };
  observed[WRAPPED] = true;
  globalThis.fetch = observed;
}

/**
 * Lets `onData` hear each chunk of a successful response's body as the SDK reads it. The body is
 * passed through unchanged; only `body` is replaced on this one response, the first time it is
 * read (an SDK reads a stream's `body`, an error's `text()`, never both).
 */
function watchBody(response: Response, onData: () => void): void {
  const original = response.body;
  if (!original) return;
  let watched: ReadableStream<Uint8Array> | undefined;
  Object.defineProperty(response, 'body', {
    configurable: true,
    get() {
      watched ??= original.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            onData();
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
 * `onData`, when given, hears every sign of life from the provider: each response's headers and
 * each chunk of a successful response's body (keep-alives included), as they arrive.
 */
export async function observeResponses<T>(
  work: () => Promise<T>,
  onData?: () => void,
): Promise<{ result: T; responses: ObservedResponse[] }> {
  installFetchWrapper();
  const responses: ObservedResponse[] = [];
  const result = await calls.run({ responses, onData }, work);
  return { result, responses };
}
