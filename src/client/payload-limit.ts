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

function jsonBytes(value: unknown): number {
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
  } catch {
    return 0;
  }
}

function megabytes(bytes: number): string {
  return (bytes / 1_000_000).toFixed(1);
}
