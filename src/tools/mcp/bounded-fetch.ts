import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/**
 * The most one message from an MCP server may take, in bytes: a JSON answer, or one event of an
 * event stream. The SDK bounds a stdio server's lines at the same size (it is passed there too);
 * over HTTP it reads a JSON answer whole and an event's data without end, so a server answering
 * with a runaway result (a tool that fetched a huge page, a loop) could fill a worker's memory
 * and stop every job on it. A tool result is cut to 50 KiB before it reaches a job anyway.
 */
export const MAXIMUM_MCP_MESSAGE_BYTES = 10 * 1024 * 1024;

/** An MCP server sent a message over {@link MAXIMUM_MCP_MESSAGE_BYTES}. */
export class McpMessageTooLargeError extends Error {
  override readonly name = 'McpMessageTooLargeError';
}

function describeBytes(bytes: number): string {
  const mebibytes = bytes / (1024 * 1024);
  return Number.isInteger(mebibytes) ? `${mebibytes} MiB` : `${bytes} bytes`;
}

/** The error text of a message over the limit from server `serverName`. */
export function tooLargeMessage(
  serverName: string,
  maximumBytes = MAXIMUM_MCP_MESSAGE_BYTES,
): string {
  return (
    `MCP server ${serverName} sent a message over ${describeBytes(maximumBytes)}: ` +
    'its answer was not read (the limit keeps a runaway result from filling the worker)'
  );
}

const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * Counts the bytes of the message being received: for an event stream, those since the last
 * blank line (an event's end); for anything else, all of them.
 */
function messageSizer(eventStream: boolean): (chunk: Uint8Array) => number {
  let size = 0;
  let previous = -1;
  return (chunk) => {
    if (!eventStream) {
      size += chunk.byteLength;
      return size;
    }
    let largest = 0;
    for (const byte of chunk) {
      if (byte === CARRIAGE_RETURN) continue;
      if (byte === LINE_FEED && previous === LINE_FEED) size = 0;
      else size += 1;
      previous = byte;
      largest = Math.max(largest, size);
    }
    return largest;
  };
}

/**
 * `fetch` for an MCP server's HTTP transport whose response bodies stop, with a
 * {@link McpMessageTooLargeError}, at the first message over `maximumBytes`; `onTooLarge` hears
 * it (the connection closes then, so the request waiting for that message fails at once rather
 * than at its timeout). Requests and everything within the limit pass unchanged.
 */
export function boundedFetch(
  serverName: string,
  maximumBytes: number,
  onTooLarge: (error: McpMessageTooLargeError) => void,
  base: FetchLike = (url, init) => fetch(url, init),
): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    // Statuses whose response has no body (and a `Response` may not be made with one).
    if (!response.body || [101, 204, 205, 304].includes(response.status)) return response;
    const eventStream = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    const sizeAfter = messageSizer(eventStream);
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          if (sizeAfter(chunk) <= maximumBytes) {
            controller.enqueue(chunk);
            return;
          }
          const error = new McpMessageTooLargeError(tooLargeMessage(serverName, maximumBytes));
          controller.error(error);
          onTooLarge(error);
        },
      }),
    );
    const bounded = new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    // The SDK names a redirect it did not follow from the response's address.
    Object.defineProperty(bounded, 'url', { value: response.url });
    return bounded;
  };
}
