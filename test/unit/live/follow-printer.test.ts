import { createFollowPrinter } from '../../../src/cli/follow-printer.js';
import type { SequencedLiveEvent } from '../../../src/live/live-events.js';
import type { AssistantMessage } from '../../../src/core/messages.js';
import type { SequencedEvent } from '../../../src/workflows/job-types.js';

function output(isTTY: boolean) {
  let text = '';
  return {
    out: { isTTY, columns: 40, write: (chunk: string) => (text += chunk) },
    text: () => text,
  };
}

const token = (text: string, liveSeq: number, attempt = 1): SequencedLiveEvent => ({
  type: 'message_update',
  turn: 1,
  callIndex: 0,
  attempt,
  liveSeq,
  assistantMessageEvent: { type: 'text_delta', contentIndex: 0, delta: text },
});

const assistantEnd = (
  text: string,
  seq: number,
  ending: Pick<AssistantMessage, 'stopReason' | 'errorMessage'> = { stopReason: 'stop' },
): SequencedEvent => ({
  type: 'message_end',
  seq,
  message: {
    role: 'assistant',
    content: [{ type: 'text', text }],
    api: 'x',
    provider: 'x',
    model: 'x',
    usage: {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    timestamp: 0,
    ...ending,
  },
});

test('to a pipe: tokens are printed as they come, the final message only ends the line', () => {
  const { out, text } = output(false);
  const printer = createFollowPrinter({ json: false, out });
  printer.event({ type: 'turn_start', seq: 1 });
  printer.live(token('Hel', 1));
  printer.live(token('lo', 2));
  expect(text()).toBe('-- turn 1 --\nassistant: Hello');
  printer.event(assistantEnd('Hello', 2));
  expect(text()).toBe('-- turn 1 --\nassistant: Hello\n');
});

test.each(['error', 'aborted'] as const)(
  'to a pipe: an answer that streamed text and then ended on %s prints its error line',
  (stopReason) => {
    const { out, text } = output(false);
    const printer = createFollowPrinter({ json: false, out });
    printer.live(token('Hel', 1));
    printer.live(token('lo', 2));
    printer.event(assistantEnd('Hello', 3, { stopReason, errorMessage: 'the provider went away' }));
    expect(text()).toBe(`assistant: Hello\nassistant ${stopReason}: the provider went away\n`);
  },
);

test('to a pipe: a void partial answer is said so, then the retry streams again', () => {
  const { out, text } = output(false);
  const printer = createFollowPrinter({ json: false, out });
  printer.live(token('Par', 1));
  printer.live({ type: 'message_void', turn: 1, callIndex: 0, attempt: 1, liveSeq: 2 });
  printer.live(token('Whole', 3, 2));
  printer.event(assistantEnd('Whole', 5));
  expect(text()).toBe(
    'assistant: Par\n[partial answer discarded: the model call is retried]\nassistant: Whole\n',
  );
});

test('on a terminal: the partial answer is erased on a retry and replaced by the final one', () => {
  const { out, text } = output(true);
  const printer = createFollowPrinter({ json: false, out });
  printer.live(token('Par', 1));
  printer.live({ type: 'message_void', turn: 1, callIndex: 0, attempt: 1, liveSeq: 2 });
  expect(text()).toBe('assistant: Par\r\x1b[J');
  printer.live(token('Who', 3, 2));
  printer.event(assistantEnd('Whole answer', 5));
  expect(text().endsWith('assistant: Who\r\x1b[Jassistant: Whole answer\n')).toBe(true);
});

test('bash output lines and JSON cursors', () => {
  const { out, text } = output(false);
  const printer = createFollowPrinter({ json: false, out });
  printer.live({
    type: 'tool_execution_update',
    attempt: 1,
    toolCallId: 'c',
    toolName: 'bash',
    liveSeq: 4,
    partialResult: { content: [{ type: 'text', text: 'one\ntwo\n' }] },
  });
  expect(text()).toBe('  | one\n  | two\n');

  const json = output(false);
  const jsonPrinter = createFollowPrinter({ json: true, out: json.out });
  jsonPrinter.event({ type: 'turn_start', seq: 7 });
  jsonPrinter.live(token('x', 12));
  const lines = json
    .text()
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(lines[1]).toMatchObject({ type: 'message_update', liveSeq: 12, cursor: '7:12' });
});

test('text mode shows the control characters of streamed tokens, bash output and events as symbols', () => {
  const { out, text } = output(false);
  const printer = createFollowPrinter({ json: false, out });
  printer.event({ type: 'turn_start', seq: 1 });
  printer.live(token('Look\u001b[2J', 1));
  printer.event(assistantEnd('Look\u001b[2J', 2));
  printer.live({
    type: 'tool_execution_update',
    turn: 1,
    attempt: 1,
    liveSeq: 2,
    toolCallId: 'call-1',
    toolName: 'bash',
    partialResult: { content: [{ type: 'text', text: '\u001b]52;c;cHduZWQ=\u0007ok\r\n' }] },
  });
  printer.event({
    type: 'tool_execution_end',
    seq: 3,
    toolCallId: 'call-1',
    toolName: 'bash',
    result: { content: [{ type: 'text', text: 'done \u202eevil' }], details: undefined },
    isError: false,
  });
  expect(text()).toBe(
    '-- turn 1 --\nassistant: Look␛[2J\n  | ␛]52;c;cHduZWQ=␇ok\n  ok bash: done <U+202E>evil\n',
  );
  for (const character of ['\u001b', '\u0007', '\u202e']) expect(text()).not.toContain(character);
});

test('JSON mode keeps the text exactly (JSON escapes the controls itself)', () => {
  const { out, text } = output(false);
  const printer = createFollowPrinter({ json: true, out });
  printer.event(assistantEnd('Look\u001b[2J', 1));
  expect(text()).not.toContain('\u001b');
  const printed = JSON.parse(text()) as { message: { content: Array<{ text: string }> } };
  expect(printed.message.content[0]?.text).toBe('Look\u001b[2J');
});
