import { refusalSays } from './server-refusal.js';

/**
 * What a client sends a job (its start input, a steering or follow-up message) is one payload
 * in Temporal's history, and the server refuses a payload over its size limit (2 MB unless the
 * server sets `limit.blobSize.error`) with a bare "Failed to start Workflow" or "Failed to
 * signal". This names what was too large, its size, and what to do instead.
 */
export class PayloadTooLargeError extends Error {
  override readonly name = 'PayloadTooLargeError';

  constructor(
    /** What was sent, as a sentence starts: `The job's input`, `The steering message`, ... */
    readonly what: string,
    /** Its size as JSON, in bytes. */
    readonly bytes: number,
    options?: { cause?: unknown },
  ) {
    super(
      `${what} is ${megabytes(bytes)} MB as JSON, over the Temporal server's ` +
        'payload limit (2 MB unless the server sets limit.blobSize.error). Put large ' +
        'material in the workspace as a file and ask the agent to read it.',
      options,
    );
  }
}

/**
 * Temporal's default limit of one payload (`limit.blobSize.error`: 2 MiB), which the embedded
 * server keeps. What is checked against it before it is sent (a batch's lines) leaves room for
 * the payload's metadata and what is added at the start (the batch id).
 */
export const DEFAULT_PAYLOAD_LIMIT_BYTES = 2 * 1024 * 1024;

/** Bytes kept free under {@link DEFAULT_PAYLOAD_LIMIT_BYTES} by a check made before a send. */
export const PAYLOAD_HEADROOM_BYTES = 1024;

/** Whether the server refused a request for a payload over its size limit. */
export function isPayloadSizeRefusal(error: unknown): boolean {
  return refusalSays(error, /size exceeds limit/i);
}

/**
 * Runs `send` (a request carrying `payload`); a refusal for the payload's size becomes a
 * `PayloadTooLargeError` naming `what`. Any other failure passes through unchanged.
 */
export async function sendingPayload<T>(
  what: string,
  payload: unknown,
  send: () => Promise<T>,
): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (!isPayloadSizeRefusal(error)) throw error;
    throw new PayloadTooLargeError(what, jsonBytes(payload), { cause: error });
  }
}

/** The size of `value` as JSON (UTF-8); 0 when it has none. */
export function jsonBytes(value: unknown): number {
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
  } catch {
    return 0;
  }
}

function megabytes(bytes: number): string {
  return (bytes / 1_000_000).toFixed(1);
}
