import { boundedFetch, McpMessageTooLargeError } from '../../../src/tools/mcp/bounded-fetch.js';

/** A `fetch` that answers with these chunks as its body. */
function answering(chunks: string[], contentType: string) {
  return () => {
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
        controller.close();
      },
    });
    return Promise.resolve(
      new Response(body, { status: 200, headers: { 'content-type': contentType } }),
    );
  };
}

const event = (size: number) => `data: ${'y'.repeat(size)}\n\n`;

test('an event stream is bounded per event: many events under the limit pass, whatever their total', async () => {
  const heard: McpMessageTooLargeError[] = [];
  const fetch = boundedFetch(
    's',
    100,
    (error) => heard.push(error),
    answering(
      Array.from({ length: 50 }, () => event(80)),
      'text/event-stream',
    ),
  );
  const text = await (await fetch('http://127.0.0.1/mcp')).text();
  expect(text).toBe(event(80).repeat(50));
  expect(heard).toEqual([]);
});

test('an event over the limit stops the body, even when it arrives in small chunks and ends with CRLFs', async () => {
  const heard: McpMessageTooLargeError[] = [];
  const chunks = [
    event(10).replaceAll('\n', '\r\n'),
    'data: ',
    ...Array.from({ length: 30 }, () => 'zzzzz'),
    '\r\n\r\n',
  ];
  const fetch = boundedFetch(
    's',
    100,
    (error) => heard.push(error),
    answering(chunks, 'text/event-stream'),
  );
  const response = await fetch('http://127.0.0.1/mcp');
  await expect(response.text()).rejects.toThrow(McpMessageTooLargeError);
  expect(heard.map((error) => error.message)).toEqual([
    'MCP server s sent a message over 100 bytes: its answer was not read (the limit keeps a runaway result from filling the worker)',
  ]);
});

test('any other body is bounded as a whole; a blank line in JSON does not restart the count', async () => {
  const heard: McpMessageTooLargeError[] = [];
  const chunks = ['{"a": "', 'x'.repeat(60), '\n\n', 'x'.repeat(60), '"}'];
  const fetch = boundedFetch(
    's',
    100,
    (error) => heard.push(error),
    answering(chunks, 'application/json'),
  );
  await expect((await fetch('http://127.0.0.1/mcp')).json()).rejects.toThrow(
    McpMessageTooLargeError,
  );
  expect(heard).toHaveLength(1);
});
