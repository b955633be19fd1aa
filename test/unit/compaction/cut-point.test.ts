import { chooseCutPoint, isCutPoint } from '../../../src/compaction/cut-point.js';
import { estimateMessageTokens } from '../../../src/compaction/token-estimate.js';
import { emptyUsage, type Message } from '../../../src/core/index.js';

/** A message of about `tokens` tokens (four characters each). */
function user(tokens: number): Message {
  return { role: 'user', content: 'u'.repeat(tokens * 4), timestamp: 0 };
}

function assistant(tokens: number, callIds: string[] = []): Message {
  return {
    role: 'assistant',
    content: [
      { type: 'text', text: 'a'.repeat(tokens * 4) },
      ...callIds.map((id) => ({ type: 'toolCall' as const, id, name: '', arguments: '' })),
    ],
    usage: emptyUsage(),
    stopReason: callIds.length > 0 ? 'toolUse' : 'stop',
    timestamp: 0,
  };
}

function result(tokens: number, callId: string): Message {
  return {
    role: 'toolResult',
    toolCallId: callId,
    toolName: 'bash',
    content: [{ type: 'text', text: 'r'.repeat(tokens * 4) }],
    isError: false,
    timestamp: 0,
  };
}

/** The kept part after a cut: must never start with a tool result cut off from its call. */
function expectWholeTurns(messages: Message[], cut: number): void {
  expect(messages[cut]?.role).not.toBe('toolResult');
  const kept = messages.slice(cut);
  const calls = new Set(
    kept.flatMap((message) =>
      message.role === 'assistant'
        ? message.content.flatMap((block) => (block.type === 'toolCall' ? [block.id] : []))
        : [],
    ),
  );
  for (const message of kept) {
    if (message.role === 'toolResult') expect(calls.has(message.toolCallId)).toBe(true);
  }
}

test('token estimate: four characters a token, tool calls by name and arguments, images 1200', () => {
  expect(estimateMessageTokens(user(10))).toBe(10);
  expect(estimateMessageTokens({ role: 'user', content: 'abcde', timestamp: 0 })).toBe(2);
  expect(
    estimateMessageTokens({
      role: 'toolResult',
      toolCallId: 'c',
      toolName: 'read',
      content: [{ type: 'image', data: 'xx', mimeType: 'image/png' }],
      isError: false,
      timestamp: 0,
    }),
  ).toBe(1200);
});

test('cut point: keeps about keepRecentTokens of the newest messages, cutting at the next turn boundary', () => {
  // 0 user, 1-2 turn a, 3-4 turn b, 5-6 turn c, 7 final answer
  const messages = [
    user(100),
    assistant(10, ['a']),
    result(100, 'a'),
    assistant(10, ['b']),
    result(100, 'b'),
    assistant(10, ['c']),
    result(100, 'c'),
    assistant(50),
  ];
  // 50 + 100 + 11 (text and a tool call) = 161 >= 160 at index 5, an assistant message: cut there.
  expect(chooseCutPoint(messages, 160)).toBe(5);
  // 50 + 100 = 150 >= 120 at index 6, a tool result: the next cut point is 7.
  expect(chooseCutPoint(messages, 120)).toBe(7);
  expectWholeTurns(messages, 7);
  // 50 + 100 + 11 + 100 = 261 >= 200 at index 4 (a tool result): the next cut point is 5.
  expect(chooseCutPoint(messages, 200)).toBe(5);
  expectWholeTurns(messages, 5);
});

test('cut point: never before a tool result, whatever the budget', () => {
  const messages = [
    user(30),
    assistant(5, ['a', 'b']),
    result(40, 'a'),
    result(40, 'b'),
    assistant(5, ['c']),
    result(40, 'c'),
    user(3),
  ];
  for (let keep = 0; keep <= 200; keep += 1) {
    const cut = chooseCutPoint(messages, keep);
    expect(cut).toBeDefined();
    expect(cut).toBeGreaterThan(0);
    expect(cut).toBeLessThan(messages.length);
    expectWholeTurns(messages, cut ?? 0);
  }
});

test('cut point: everything fits in the budget, at least the first message is summarised', () => {
  const messages = [user(10), assistant(10, ['a']), result(10, 'a')];
  expect(chooseCutPoint(messages, 10_000)).toBe(1);
});

test('cut point: a newest turn larger than the budget is kept whole; the turns before it are summarised', () => {
  const messages = [user(10), assistant(10), user(10), assistant(10, ['a']), result(5000, 'a')];
  expect(chooseCutPoint(messages, 100)).toBe(3);
});

test('cut point: nothing to summarise without a boundary after the first message', () => {
  expect(chooseCutPoint([], 10)).toBeUndefined();
  expect(chooseCutPoint([user(500)], 10)).toBeUndefined();
  expect(chooseCutPoint([result(500, 'x'), result(500, 'y')], 10)).toBeUndefined();
  expect(isCutPoint([user(1)], 0)).toBe(true);
  expect(isCutPoint([result(1, 'x')], 0)).toBe(false);
});
