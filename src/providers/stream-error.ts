import { isRecord } from './json-record.js';

/**
 * An error a provider sent inside a stream that had started with HTTP 200: OpenAI and
 * OpenAI-compatible servers (vLLM, a gateway) end a failing Chat Completions stream with
 * `data: {"error":{"message":...,"type":"server_error","code":500}}`, Anthropic with an `error`
 * event. The SDK that reads it keeps only the message, so whether it is worth a retry (a server
 * error) or not (a refused request) is read here, from the stream's last lines.
 */
export interface StreamError {
  /** `server_error`, `overloaded_error`, `invalid_request_error` ... */
  type?: string;
  /** An HTTP-like status when the error gives one (`"code": 500`, `"code": "503"`). */
  status?: number;
}

/** Data lines looked at, from the end: the error event is the last, or near it. */
const LINES_LOOKED_AT = 4;

function errorOf(data: string): StreamError | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed) || !isRecord(parsed.error)) return undefined;
  const { type, code, status } = parsed.error;
  const found: StreamError = {};
  if (typeof type === 'string') found.type = type;
  const number = Number(code ?? status);
  if (Number.isInteger(number) && number >= 400 && number <= 599) found.status = number;
  return found;
}

/** The error event among the last data lines of a stream's text, if there is one. */
export function streamErrorIn(text: string): StreamError | undefined {
  const dataLines = text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .slice(-LINES_LOOKED_AT);
  for (const line of dataLines.reverse()) {
    const found = errorOf(line.slice('data:'.length).trim());
    if (found) return found;
  }
  return undefined;
}
