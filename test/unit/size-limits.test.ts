import {
  MAXIMUM_ARGUMENTS_LENGTH,
  MAXIMUM_ERROR_TEXT_LENGTH,
  MAXIMUM_MODEL_REQUEST_BYTES,
  MAXIMUM_QUOTED_LENGTH,
  MAXIMUM_TOOL_CALL_ID_LENGTH,
  MAXIMUM_TOOL_NAME_LENGTH,
  modelRequestSizeError,
  quoteBounded,
  utf8ByteLength,
  type ToolCall,
} from '../../src/core/index.js';
import { createWorkspacePolicy } from '../../src/policy/workspace-policy.js';
import { agentHarness } from './support/harness.js';
import { assistant, text, toolCall } from './support/messages.js';
import { immediateText, preflight } from './support/preflight.js';
import { anyTool, editTool, readTool } from './support/tools.js';
import { expectEveryToolCallAnswered, resultsOf, textOfResult } from './support/transcript.js';

const MEGABYTE = 1024 * 1024;
/** Quoted input plus the words around it: what a bounded error text may add up to. */
const SHORT_ERROR = 1000;

describe('quoteBounded', () => {
  test('keeps a short text and cuts a long one with the count of what was left out', () => {
    expect(quoteBounded('short')).toBe('short');
    const quoted = quoteBounded('x'.repeat(1000));
    expect(quoted).toBe(`${'x'.repeat(MAXIMUM_QUOTED_LENGTH)}... (800 more characters)`);
  });

  test('does not split a surrogate pair', () => {
    const quoted = quoteBounded(`${'a'.repeat(MAXIMUM_QUOTED_LENGTH - 1)}😀${'b'.repeat(10)}`);
    expect(quoted.startsWith(`${'a'.repeat(MAXIMUM_QUOTED_LENGTH - 1)}...`)).toBe(true);
  });
});

describe('R6: size checks before lookup', () => {
  test('R6: a 1 MB tool name is refused before lookup, naming the limit and quoting a prefix', async () => {
    const name = 'n'.repeat(MEGABYTE);
    const message = immediateText(await preflight([readTool], toolCall('c1', name, {})));
    expect(message).toContain(`its tool name is ${MEGABYTE} characters long`);
    expect(message).toContain(`limit ${MAXIMUM_TOOL_NAME_LENGTH}`);
    expect(message).toContain(`${'n'.repeat(MAXIMUM_QUOTED_LENGTH)}...`);
    expect(message.length).toBeLessThan(SHORT_ERROR);
  });

  test('R6: a 1 MB call id is refused even for a known tool with good arguments', async () => {
    const id = 'i'.repeat(MEGABYTE);
    const message = immediateText(await preflight([readTool], toolCall(id, 'read', { path: 'a' })));
    expect(message).toContain(`its call id is ${MEGABYTE} characters long`);
    expect(message).toContain(`limit ${MAXIMUM_TOOL_CALL_ID_LENGTH}`);
    expect(message.length).toBeLessThan(SHORT_ERROR);
  });

  test('R6: arguments over the limit are refused before the shim and validation see them', async () => {
    const shimCalls: unknown[] = [];
    const tool = {
      ...editTool,
      prepareArguments: (raw: unknown) => {
        shimCalls.push(raw);
        return raw;
      },
    };
    const call = toolCall('c1', 'edit', { path: 'p'.repeat(MAXIMUM_ARGUMENTS_LENGTH) });
    const message = immediateText(await preflight([tool], call));
    expect(message).toContain(`its arguments are ${MAXIMUM_ARGUMENTS_LENGTH + 11} characters`);
    expect(message).toContain(`limit ${MAXIMUM_ARGUMENTS_LENGTH}`);
    expect(message.length).toBeLessThan(SHORT_ERROR);
    expect(shimCalls).toEqual([]);
  });

  test('R6: arguments just within the limit are looked up and validated as usual', async () => {
    const path = 'p'.repeat(MAXIMUM_ARGUMENTS_LENGTH - 20);
    const outcome = await preflight([readTool], toolCall('c1', 'read', { path }));
    expect(outcome.kind).toBe('prepared');
  });

  test('R6: a call the model activity marked as oversized is refused with the recorded sizes', async () => {
    const call: ToolCall = {
      ...toolCall('short-id-0123456789ab', 'read', { omitted: 'arguments over the size limit' }),
      oversized: { argumentsLength: 3 * MEGABYTE, idLength: 2 * MEGABYTE },
    };
    const message = immediateText(await preflight([readTool], call));
    expect(message).toContain(`its call id is ${2 * MEGABYTE} characters long`);
    expect(message).toContain(`its arguments are ${3 * MEGABYTE} characters of JSON`);
    // The mark survives the JSON round trip that every workflow payload makes.
    const roundTripped = JSON.parse(JSON.stringify(call)) as ToolCall;
    expect(immediateText(await preflight([readTool], roundTripped))).toBe(message);
  });

  test('R5, R4: oversized calls in a parallel batch each get a start, an error end and one result; the others run', async () => {
    const calls = [
      toolCall('big-name', 'x'.repeat(MEGABYTE), {}),
      toolCall('i'.repeat(MEGABYTE), 'read', { path: 'a' }),
      toolCall('big-args', 'read', { path: 'y'.repeat(MEGABYTE) }),
      toolCall('ok', 'read', { path: 'a' }),
    ];
    const harness = agentHarness({
      tools: [readTool],
      answers: [assistant(calls), assistant([text('done')])],
    });
    await harness.run();

    expectEveryToolCallAnswered(harness.transcript.messages);
    expect(harness.executed.map((call) => call.toolCall.id)).toEqual(['ok']);
    const results = resultsOf(harness.transcript.messages);
    expect(results.map((result) => result.isError)).toEqual([true, true, true, false]);
    for (const result of results.slice(0, 3)) {
      expect(textOfResult(result).length).toBeLessThan(SHORT_ERROR);
    }
    const ends = harness.sink.events.filter((event) => event.type === 'tool_execution_end');
    expect(ends).toHaveLength(4);
  });
});

describe('bounded error texts', () => {
  test('R6: `Tool <name> not found` quotes only a prefix of a long unknown name', async () => {
    const name = 'q'.repeat(MAXIMUM_TOOL_NAME_LENGTH);
    const message = immediateText(await preflight([readTool], toolCall('c1', name, {})));
    expect(message).toBe(
      `Tool ${'q'.repeat(MAXIMUM_QUOTED_LENGTH)}... (56 more characters) not found`,
    );
  });

  test('R8: the dump of the raw arguments is cut to a short prefix', async () => {
    const raw = { path: { nested: true }, filler: 'f'.repeat(200_000) };
    const message = immediateText(await preflight([readTool], toolCall('c1', 'read', raw)));
    expect(message).toContain('path: must be string');
    expect(message).toMatch(/Received arguments:\n[^]{200}\.\.\. \(\d+ more characters\)$/);
    expect(message.length).toBeLessThan(SHORT_ERROR);
  });

  test('R8: thousands of failing fields with long names are listed in part and counted', async () => {
    const raw: Record<string, number> = {};
    for (let index = 0; index < 2000; index += 1) raw[`${'k'.repeat(100)}${index}`] = index;
    const strict = {
      ...readTool,
      parameters: { ...readTool.parameters, additionalProperties: false },
    };
    const message = immediateText(await preflight([strict], toolCall('c1', 'read', raw)));
    expect(message).toContain('... and 1981 more failing fields');
    expect(message.length).toBeLessThan(5000);
  });

  test('R7: a shim that throws a message quoting huge input gives a bounded error', async () => {
    const tool = {
      ...anyTool,
      prepareArguments: (raw: unknown) => {
        throw new Error(`cannot shape ${JSON.stringify(raw)}`);
      },
    };
    const message = immediateText(
      await preflight([tool], toolCall('c1', 'any', { blob: 'b'.repeat(200_000) })),
    );
    expect(message.startsWith('cannot shape {"blob":"bbb')).toBe(true);
    expect(message.length).toBeLessThanOrEqual(MAXIMUM_ERROR_TEXT_LENGTH + 40);
  });

  test('R10: a hook block reason and a hook throw that quote huge input are bounded', async () => {
    const blob = 'h'.repeat(200_000);
    const call = toolCall('c1', 'any', { blob });
    const blocked = immediateText(
      await preflight([anyTool], call, {
        beforeToolCall: () => ({ block: true, reason: `no ${blob}` }),
      }),
    );
    const thrown = immediateText(
      await preflight([anyTool], call, {
        beforeToolCall: () => {
          throw new Error(`refused ${blob}`);
        },
      }),
    );
    for (const message of [blocked, thrown]) {
      expect(message).toMatch(/\.\.\. \(\d+ more characters\)$/);
      expect(message.length).toBeLessThanOrEqual(MAXIMUM_ERROR_TEXT_LENGTH + 40);
    }
  });

  test('R10: the workspace rule quotes only a prefix of a long path outside the workspace', async () => {
    const path = `../${'d'.repeat(200_000)}`;
    const message = immediateText(
      await preflight([readTool], toolCall('c1', 'read', { path }), {
        beforeToolCall: createWorkspacePolicy({ workspace: '/work/space' }),
      }),
    );
    expect(message).toContain('is outside the workspace');
    expect(message.length).toBeLessThan(SHORT_ERROR);
  });
});

describe('model request size', () => {
  test('UTF-8 bytes are counted as Node encodes them', () => {
    for (const sample of [
      '',
      'abc',
      'é',
      '€',
      '😀',
      'a😀é€\u0000z',
      '\ud800',
      'x\udc00y',
      '\ud800\ud800\udc00',
    ]) {
      expect(utf8ByteLength(sample)).toBe(Buffer.byteLength(sample, 'utf8'));
    }
  });

  test('a request over the limit is named with its size; one within it passes', () => {
    const request = (content: string) => ({
      systemPrompt: 'test',
      messages: [{ role: 'user' as const, content, timestamp: 1 }],
      tools: [],
    });
    expect(modelRequestSizeError(request('small'))).toBeUndefined();
    // Three bytes a character: under the limit in characters, over it in bytes.
    const message = modelRequestSizeError(request('€'.repeat(MAXIMUM_MODEL_REQUEST_BYTES / 2)));
    expect(message).toMatch(
      /^The transcript is too large to send to the model: the request is \d+ bytes/,
    );
  });
});
