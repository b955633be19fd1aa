import { streamErrorIn } from '../../../src/providers/stream-error.js';

const chunk = (content: string) =>
  `data: {"id":"c","choices":[{"index":0,"delta":{"content":${JSON.stringify(content)}}}]}\n\n`;

test("an OpenAI-style error event at a stream's end gives its type and code", () => {
  const stream =
    chunk('Hel') +
    'data: {"error":{"message":"The server had an error","type":"server_error","code":500}}\n\n';
  expect(streamErrorIn(stream)).toEqual({ type: 'server_error', status: 500 });
  // A code given as text, or as status, counts; one that is not an HTTP error status does not.
  expect(streamErrorIn('data: {"error":{"type":"x","code":"503"}}\n')).toEqual({
    type: 'x',
    status: 503,
  });
  expect(streamErrorIn('data: {"error":{"status":429}}\n')).toEqual({ status: 429 });
  expect(streamErrorIn('data: {"error":{"type":"x","code":"rate_limit"}}\n')).toEqual({
    type: 'x',
  });
});

test("Anthropic's error event gives its type", () => {
  const stream =
    'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';
  expect(streamErrorIn(stream)).toEqual({ type: 'overloaded_error' });
});

test('a stream without an error event, or whose model wrote about errors, has none', () => {
  expect(streamErrorIn(chunk('a') + chunk('b') + 'data: [DONE]\n\n')).toBeUndefined();
  expect(streamErrorIn(chunk('{"error":{"type":"server_error"}}'))).toBeUndefined();
  expect(streamErrorIn('data: {"error": not json\n')).toBeUndefined();
  expect(streamErrorIn('')).toBeUndefined();
});
