import {
  MAX_RETRY_AFTER_MS,
  classifyFailure,
  statusFromText,
  tidyErrorText,
} from '../../../src/providers/provider-errors.js';
import { retryAfterMs } from '../../../src/providers/http-observer.js';

/**
 * The classification of failed model calls, from the texts pi-ai actually produces (the
 * Anthropic and OpenAI SDK error messages it copies into `errorMessage`) and from the HTTP
 * responses the call observed. No server needed.
 */

describe('statusFromText finds the HTTP status pi-ai leaves inside errorMessage', () => {
  test.each([
    ['429 {"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}', 429],
    [
      '401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}',
      401,
    ],
    ['401 Incorrect API key provided: sk-proj-****abcd', 401],
    ['500 status code (no body)', 500],
    ['529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', 529],
    ['HTTP 503 Service Unavailable', 503],
    ['Request failed: HTTP/1.1 502 Bad Gateway', 502],
    ['request failed with status code: 504', 504],
    ['upstream statusCode=500', 500],
    ['{"error":{"code":429,"message":"Resource exhausted"}}', 429],
    ['{"status": "404", "message": "no such model"}', 404],
  ])('%s -> %i', (text, status) => {
    expect(statusFromText(text)).toBe(status);
  });

  test.each([
    ['Connection error.'],
    ['Request was aborted.'],
    ['200 tokens is the limit'],
    ['Provider finish_reason: content_filter'],
    ['model claude-3-5-sonnet-20241022 not found'],
    ['1234 things went wrong'],
  ])('no status in %s', (text) => {
    expect(statusFromText(text)).toBeUndefined();
  });
});

describe('classifyFailure', () => {
  test('429, 408, 409, 5xx and 529 are transient; 400, 401, 403, 404, 422 are not', () => {
    for (const status of [408, 409, 429, 500, 502, 503, 504, 529]) {
      expect(classifyFailure(`${status} {"error":{"message":"x"}}`).transient).toBe(true);
    }
    for (const status of [400, 401, 403, 404, 413, 422]) {
      expect(classifyFailure(`${status} {"error":{"message":"x"}}`).transient).toBe(false);
    }
  });

  test('network failures and overload without a status are transient', () => {
    for (const text of [
      'Connection error.',
      'Request timed out.',
      'terminated',
      'fetch failed',
      'read ECONNRESET',
      'Anthropic stream ended before message_stop',
      '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
      'Error Code rate_limit_exceeded: Rate limit reached',
    ]) {
      expect(classifyFailure(text)).toMatchObject({ transient: true });
    }
  });

  test('other failures without a status end the run', () => {
    for (const text of [
      'Provider finish_reason: content_filter',
      'Unhandled stop reason: weird',
      'An unknown error occurred',
      '',
    ]) {
      expect(classifyFailure(text).transient).toBe(false);
    }
  });

  test('a used-up quota is a 429 that waiting does not fix', () => {
    const failure = classifyFailure(
      '429 You exceeded your current quota, please check your plan and billing details.',
    );
    expect(failure).toMatchObject({ transient: false, status: 429 });
  });

  test('the observed response wins over the text, and brings its Retry-After', () => {
    const failure = classifyFailure('Connection error.', [
      { status: 200 },
      { status: 429, retryAfterMs: 1500 },
    ]);
    expect(failure).toEqual({
      transient: true,
      status: 429,
      retryAfterMs: 1500,
      message: 'HTTP 429: Connection error.',
    });
  });

  test('a 200 stream that failed midway is judged by its text', () => {
    const failure = classifyFailure(
      '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
      [{ status: 200 }],
    );
    expect(failure).toEqual({ transient: true, message: 'Overloaded (overloaded_error)' });
  });

  test("a 200 stream that ended with an error event is judged by that event's type and code", () => {
    // The OpenAI SDK keeps only the message of `data: {"error":{...}}`.
    const message = 'The server had an error while processing your request';
    expect(
      classifyFailure(message, [
        { status: 200, streamError: { type: 'server_error', status: 500 } },
      ]),
    ).toEqual({ transient: true, status: 500, message: `HTTP 500: ${message}` });
    expect(
      classifyFailure(message, [{ status: 200, streamError: { type: 'server_error' } }]),
    ).toEqual({ transient: true, message });
    expect(
      classifyFailure('Bad tool schema', [
        { status: 200, streamError: { type: 'invalid_request_error', status: 400 } },
      ]).transient,
    ).toBe(false);
    // Without the event, the same words end the run, as before.
    expect(classifyFailure(message, [{ status: 200 }]).transient).toBe(false);
  });

  test('Retry-After is capped, and read from the words when there is no header', () => {
    expect(
      classifyFailure('429 slow down', [{ status: 429, retryAfterMs: 86_400_000 }]).retryAfterMs,
    ).toBe(MAX_RETRY_AFTER_MS);
    expect(classifyFailure('429 Rate limit reached. Please try again in 1.5s.').retryAfterMs).toBe(
      1500,
    );
    expect(classifyFailure('429 Please try again in 250ms').retryAfterMs).toBe(250);
    // Permanent failures carry no wait.
    expect(
      classifyFailure('401 bad key', [{ status: 401, retryAfterMs: 1000 }]).retryAfterMs,
    ).toBeUndefined();
  });
});

describe("tidyErrorText keeps the provider's words", () => {
  test.each([
    [
      '401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"},"request_id":"req_1"}',
      401,
      'HTTP 401: invalid x-api-key (authentication_error)',
    ],
    ['404 The model `gpt-9` does not exist', 404, 'HTTP 404: The model `gpt-9` does not exist'],
    ['500 status code (no body)', 500, 'HTTP 500: status code (no body)'],
    ['HTTP 503 Service Unavailable', 503, 'HTTP 503 Service Unavailable'],
    ['Connection error.', undefined, 'Connection error.'],
    ['', undefined, 'The model provider reported an unknown error'],
    ['{"error":"plain string error"}', undefined, 'plain string error'],
  ])('%s', (text, status, expected) => {
    expect(tidyErrorText(text, status)).toBe(expected);
  });
});

describe('retryAfterMs reads the response headers', () => {
  test('seconds, fractions, retry-after-ms, HTTP dates, garbage', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after': '1' }), now)).toBe(1000);
    expect(retryAfterMs(new Headers({ 'retry-after': '0.5' }), now)).toBe(500);
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '750', 'retry-after': '9' }), now)).toBe(
      750,
    );
    expect(retryAfterMs(new Headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:03 GMT' }), now)).toBe(
      3000,
    );
    expect(retryAfterMs(new Headers({ 'retry-after': 'Tue, 31 Dec 2024 00:00:00 GMT' }), now)).toBe(
      0,
    );
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers(), now)).toBeUndefined();
  });
});
