import { ApplicationFailure } from '@temporalio/common';
import { boundModelAnswer, boundToolCall } from '../../../src/activities/bound-model-answer.js';
import { toPiContext } from '../../../src/providers/pi-ai-messages.js';
import {
  MAXIMUM_TOOL_CALLS_PER_ANSWER,
  MAXIMUM_TOOL_CALL_ID_LENGTH,
  MAXIMUM_TOOL_NAME_LENGTH,
  toolCallSizeError,
  type ToolCall,
} from '../../../src/core/index.js';
import { assistant, text, toolCall } from '../support/messages.js';

const MEGABYTE = 1024 * 1024;

describe('model answer bounds (the callModel activity)', () => {
  test('a call within the limits is returned unchanged', () => {
    const call = toolCall('c1', 'read', { path: 'a' });
    expect(boundToolCall(call)).toBe(call);
  });

  test('oversized name, id and arguments become bounded stand-ins, marked with their sizes', () => {
    const bounded = boundToolCall(
      toolCall('i'.repeat(MEGABYTE), 'n'.repeat(MEGABYTE), { path: 'p'.repeat(MEGABYTE) }),
    );
    expect(bounded.name.length).toBeLessThanOrEqual(64);
    expect(bounded.id.length).toBeLessThanOrEqual(64);
    expect(bounded.name.startsWith('nnnn')).toBe(true);
    expect(bounded.arguments).toEqual({ omitted: 'arguments over the size limit' });
    expect(bounded.oversized).toEqual({
      nameLength: MEGABYTE,
      idLength: MEGABYTE,
      argumentsLength: MEGABYTE + 11,
    });
    // R6: the preflight refuses it with the original sizes.
    expect(toolCallSizeError(bounded)).toContain(`its tool name is ${MEGABYTE} characters long`);
  });

  test('R4: ids that share a long prefix stay distinct, and the same id always maps the same', () => {
    const prefix = 'x'.repeat(MAXIMUM_TOOL_CALL_ID_LENGTH + 10);
    const first = boundToolCall(toolCall(`${prefix}1`, 'read', {})).id;
    const second = boundToolCall(toolCall(`${prefix}2`, 'read', {})).id;
    expect(first).not.toBe(second);
    expect(boundToolCall(toolCall(`${prefix}1`, 'read', {})).id).toBe(first);
  });

  test('R4: every call of an answer gets an id of its own: missing, empty and repeated ids are made unique', () => {
    const idsOf = (calls: ToolCall[]) =>
      boundModelAnswer(assistant(calls)).content.flatMap((block) =>
        block.type === 'toolCall' ? [block.id] : [],
      );
    const missing = { ...toolCall('x', 'ls', {}), id: undefined } as unknown as ToolCall;
    expect(idsOf([toolCall('', 'ls', {}), missing, toolCall('', 'ls', {})])).toEqual([
      'call_1',
      'call_2',
      'call_3',
    ]);
    // A repeated id keeps its first call's; later ones get the position, never a taken id.
    expect(
      idsOf([toolCall('same', 'ls', {}), toolCall('same', 'ls', {}), toolCall('same_2', 'ls', {})]),
    ).toEqual(['same', 'same_2', 'same_2_3']);
    // Ids that are already unique are left alone, the same answer always maps the same.
    expect(idsOf([toolCall('a', 'ls', {}), toolCall('b', 'ls', {})])).toEqual(['a', 'b']);
    // A repeated id at the length limit stays within it.
    const long = 'i'.repeat(MAXIMUM_TOOL_CALL_ID_LENGTH);
    const [first, second] = idsOf([toolCall(long, 'ls', {}), toolCall(long, 'ls', {})]);
    expect(first).toBe(long);
    expect(second).not.toBe(long);
    expect(second!.length).toBeLessThanOrEqual(MAXIMUM_TOOL_CALL_ID_LENGTH);
  });

  test('usage a provider reports is made of sane numbers: negative and NaN are 0, huge ones capped', () => {
    const reported = {
      input: -5_000_000,
      output: 1e308,
      cacheRead: Number.NaN,
      cacheWrite: 12,
      totalTokens: Number.POSITIVE_INFINITY,
      cost: { input: -75, output: 1e308, cacheRead: 0, cacheWrite: 0.5, total: -75.075 },
    };
    const { usage } = boundModelAnswer({ ...assistant([text('ok')]), usage: reported });
    expect(usage).toEqual({
      input: 0,
      output: 1e12,
      cacheRead: 0,
      cacheWrite: 12,
      totalTokens: 1e12,
      cost: { input: 0, output: 1e9, cacheRead: 0, cacheWrite: 0.5, total: 0 },
    });
    // Summed over many answers it stays a JSON number.
    expect(Number.isFinite(usage.totalTokens * 1_000_000)).toBe(true);
  });

  test('a name at the limit is kept', () => {
    const name = 'n'.repeat(MAXIMUM_TOOL_NAME_LENGTH);
    expect(boundToolCall(toolCall('c1', name, {})).name).toBe(name);
  });

  test('a message with oversized calls fits; one still too large fails for good as ModelAnswerTooLarge', () => {
    const bounded = boundModelAnswer(
      assistant([text('ok'), toolCall('c1', 'read', { path: 'p'.repeat(3 * MEGABYTE) })]),
    );
    expect(JSON.stringify(bounded).length).toBeLessThan(2000);

    let failure: unknown;
    try {
      boundModelAnswer(assistant([text('t'.repeat(2 * MEGABYTE))]));
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'ModelAnswerTooLarge', nonRetryable: true });
  });

  test('R4: calls past the limit per answer are marked for an error result; those before run', () => {
    const count = MAXIMUM_TOOL_CALLS_PER_ANSWER + 2;
    const calls = Array.from({ length: count }, (_, index) => toolCall(`c${index + 1}`, 'ls', {}));
    const bounded = boundModelAnswer(assistant([text('many'), ...calls]));
    const boundedCalls = bounded.content.filter((block) => block.type === 'toolCall');
    expect(boundedCalls).toHaveLength(count);
    expect(boundedCalls.slice(0, MAXIMUM_TOOL_CALLS_PER_ANSWER)).toEqual(
      calls.slice(0, MAXIMUM_TOOL_CALLS_PER_ANSWER),
    );
    const beyond = boundedCalls.slice(MAXIMUM_TOOL_CALLS_PER_ANSWER);
    expect(beyond.map((call) => [call.id, call.oversized])).toEqual([
      [`c${count - 1}`, { position: count - 1, callCount: count }],
      [`c${count}`, { position: count, callCount: count }],
    ]);
    expect(toolCallSizeError(boundedCalls[0] as ToolCall)).toBeUndefined();
    expect(toolCallSizeError(beyond[0]!)).toBe(
      `Tool call to ls was not run: it is call ${count - 1} of ${count} in one answer ` +
        `(limit ${MAXIMUM_TOOL_CALLS_PER_ANSWER} calls per answer). Send it again within the ` +
        'limits (split large content over several calls, and many calls over several answers).',
    );
  });

  test('the oversized mark is never sent to a provider', () => {
    const call: ToolCall = boundToolCall(toolCall('c1', 'n'.repeat(MEGABYTE), {}));
    const context = toPiContext({
      systemPrompt: 'test',
      messages: [assistant([call])],
      tools: [],
    });
    const sent = context.messages[0];
    expect(sent?.role === 'assistant' && sent.content[0]).toEqual({
      type: 'toolCall',
      id: 'c1',
      name: call.name,
      arguments: {},
    });
  });
});

test("a provider's error text is bounded", () => {
  const bounded = boundModelAnswer(assistant([], 'error', `bad request: ${'e'.repeat(500_000)}`));
  expect(bounded.errorMessage).toMatch(/^bad request: e+\.\.\. \(\d+ more characters\)$/);
  expect(bounded.errorMessage?.length).toBeLessThan(4100);
});
