import type { ObservedResponse } from './http-observer.js';
import { isRecord } from './json-record.js';

/**
 * What a failed model call means for the job: retry it (rate limit, overload, server error,
 * network) or give up at once (bad request, bad key, unknown model, refused content).
 *
 * pi-ai resolves a failed call with `stopReason: "error"` and the SDK error's text as
 * `errorMessage`, e.g. `429 {"type":"error","error":{"type":"rate_limit_error",...}}`,
 * `401 Incorrect API key provided`, `Connection error.`. The status is read from the response
 * the call actually got when it was observed, else recovered from that text.
 */
export interface ModelFailure {
  transient: boolean;
  /** HTTP status, when one is known. */
  status?: number;
  /** The provider's own words, tidied: `HTTP 401: invalid x-api-key (authentication_error)`. */
  message: string;
  /** How long the provider asked us to wait before trying again. */
  retryAfterMs?: number;
}

/** Longest wait a `Retry-After` may impose on one retry. */
export const MAX_RETRY_AFTER_MS = 10 * 60 * 1000;

const STATUS_PATTERNS = [
  // The Anthropic and OpenAI SDKs: "429 {...}", "401 Incorrect API key", "500 status code (no body)".
  /^\s*(\d{3})(?=\s|$)/,
  // "HTTP 503", "HTTP/1.1 503", "status 429", "status code: 502", "statusCode=500", "status_code 404".
  /\b(?:HTTP(?:\/\d(?:\.\d)?)?|status(?:[ _]?code)?)\s*[:=]?\s*(\d{3})\b/i,
  // A JSON error body that carries it: {"error":{"code":429,...}} or {"status":503}.
  /"(?:status|code|status_code)"\s*:\s*"?(\d{3})\b/,
];

/** The HTTP error status named in an error text, if any (400-599). */
export function statusFromText(text: string): number | undefined {
  for (const pattern of STATUS_PATTERNS) {
    const match = pattern.exec(text);
    const status = match?.[1] === undefined ? Number.NaN : Number(match[1]);
    if (status >= 400 && status <= 599) return status;
  }
  return undefined;
}

/** Rate limits, overload and server-side failures that a later attempt may get past. */
export function isTransientStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 425 || status === 429 || status >= 500;
}

const TRANSIENT_ERROR_TYPES =
  /\b(rate_limit_error|rate_limit_exceeded|overloaded_error|api_error|server_error|internal_server_error|service_unavailable|timeout_error)\b/i;
const NETWORK_FAILURES =
  /\b(Connection error|Request timed out|fetch failed|socket hang up|other side closed|terminated|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EAI_AGAIN|ENOTFOUND|UND_ERR_\w+|stream ended before)\b/i;
/**
 * Failures that arrive with a retryable status but will not go away by waiting: OpenAI answers
 * a used-up quota with 429, and its SDK keeps only the message ("You exceeded your current
 * quota, ...") of the body, not the `insufficient_quota` code.
 */
const NEVER_TRANSIENT =
  /\b(insufficient_quota|billing_hard_limit_reached)\b|exceeded your current quota/i;

/** A wait the provider spelled out in words: "Please try again in 1.5s" / "in 250ms". */
function retryAfterFromText(text: string): number | undefined {
  const match = /try again in\s+(\d+(?:\.\d+)?)\s*(ms|s)\b/i.exec(text);
  if (!match?.[1]) return undefined;
  const amount = Number.parseFloat(match[1]);
  return match[2]?.toLowerCase() === 'ms' ? amount : amount * 1000;
}

/** The human part of a JSON error body: `message (type)`. */
function describeBody(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  const inner = isRecord(body.error) ? body.error : body;
  const message = typeof inner.message === 'string' ? inner.message : undefined;
  const type = typeof inner.type === 'string' ? inner.type : undefined;
  if (message === undefined) return typeof body.error === 'string' ? body.error : undefined;
  return type && !message.includes(type) ? `${message} (${type})` : message;
}

/** `401 {"type":"error","error":{...}}` as `HTTP 401: invalid x-api-key (authentication_error)`. */
export function tidyErrorText(text: string, status: number | undefined): string {
  const trimmed = text.trim();
  const rest = status !== undefined && trimmed.startsWith(String(status)) ? trimmed.slice(3) : null;
  let detail = (rest ?? trimmed).trim();
  const jsonStart = detail.indexOf('{');
  if (jsonStart >= 0) {
    try {
      detail = describeBody(JSON.parse(detail.slice(jsonStart))) ?? detail;
    } catch {
      // Not JSON after all: keep the text as it is.
    }
  }
  if (status === undefined) return detail || 'The model provider reported an unknown error';
  const statusNamed = rest === null && statusFromText(trimmed) === status;
  if (statusNamed) return detail;
  return detail ? `HTTP ${status}: ${detail}` : `HTTP ${status}`;
}

/**
 * Classifies a failed call from its error text and the responses it received (the last one
 * with an error status is the one that failed; a 200 stream can still fail midway).
 */
export function classifyFailure(
  errorMessage: string | undefined,
  responses: readonly ObservedResponse[] = [],
): ModelFailure {
  const text = errorMessage ?? '';
  const failed = responses.findLast((response) => response.status >= 400);
  // A stream that began with 200 and ended with an error event: its own type and status.
  const streamError = failed ? undefined : responses.findLast((r) => r.streamError)?.streamError;
  const status = failed?.status ?? streamError?.status ?? statusFromText(text);
  const transient = NEVER_TRANSIENT.test(text)
    ? false
    : status !== undefined
      ? isTransientStatus(status)
      : TRANSIENT_ERROR_TYPES.test(`${streamError?.type ?? ''} ${text}`) ||
        NETWORK_FAILURES.test(text);
  const failure: ModelFailure = { transient, message: tidyErrorText(text, status) };
  if (status !== undefined) failure.status = status;
  const wait = failed?.retryAfterMs ?? retryAfterFromText(text);
  if (transient && wait !== undefined) failure.retryAfterMs = Math.min(wait, MAX_RETRY_AFTER_MS);
  return failure;
}
