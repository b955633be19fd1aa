import type { ModelRequest } from './effects.js';
import { MAXIMUM_MODEL_REQUEST_BYTES, utf8ByteLength } from './limits.js';

/**
 * Why a model request is too large to send (its JSON over `MAXIMUM_MODEL_REQUEST_BYTES`), or
 * undefined when it fits. The durable runner checks this before each model call: a request
 * that Temporal would refuse ends the run as an error (R2) rather than failing the workflow
 * task forever.
 */
export function modelRequestSizeError(request: ModelRequest): string | undefined {
  let bytes: number;
  try {
    bytes = utf8ByteLength(JSON.stringify(request));
  } catch {
    bytes = Number.POSITIVE_INFINITY;
  }
  if (bytes <= MAXIMUM_MODEL_REQUEST_BYTES) return undefined;
  return (
    `The transcript is too large to send to the model: the request is ` +
    `${Number.isFinite(bytes) ? `${bytes} bytes` : 'too large to measure'} of JSON, over the ` +
    `limit of ${MAXIMUM_MODEL_REQUEST_BYTES}. Start a new job with a shorter prompt or history.`
  );
}
