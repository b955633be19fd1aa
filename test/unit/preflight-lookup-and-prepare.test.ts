import { Type } from '@sinclair/typebox';
import type { ToolSpec } from '../../src/core/index.js';
import { agentHarness } from './support/harness.js';
import { assistant, text, toolCall } from './support/messages.js';
import { immediateText, preflight, preparedArgs } from './support/preflight.js';
import { editTool, liftLegacyEdit, readTool } from './support/tools.js';
import { expectEveryToolCallAnswered, resultsOf, textOfResult } from './support/transcript.js';

describe('R6: lookup by exact name', () => {
  test.each(['missing', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'Read', 'read '])(
    'R6: tool %j is not found',
    async (name) => {
      const outcome = await preflight([readTool, editTool], toolCall('c1', name, { path: 'a' }));
      expect(immediateText(outcome)).toBe(`Tool ${name} not found`);
    },
  );

  test('R6: a non-string name is not found and does not throw', async () => {
    const call = {
      type: 'toolCall' as const,
      id: 'c1',
      name: 42 as unknown as string,
      arguments: {},
    };
    expect(immediateText(await preflight([readTool], call))).toBe('Tool 42 not found');
  });

  test('R6, R5, R4: unknown tools in a run (prototype names too) each get start, error end and one result', async () => {
    const names = ['__proto__', 'constructor', 'toString'];
    const harness = agentHarness({
      tools: [readTool],
      answers: [
        assistant([
          ...names.map((name, index) => toolCall(`u${index}`, name, {})),
          toolCall('ok', 'read', { path: 'a' }),
        ]),
        assistant([text('done')]),
      ],
    });
    await harness.run();

    const results = resultsOf(harness.transcript.messages);
    expect(
      results.map((result) => [result.toolName, result.isError, textOfResult(result)]),
    ).toEqual([
      ['__proto__', true, 'Tool __proto__ not found'],
      ['constructor', true, 'Tool constructor not found'],
      ['toString', true, 'Tool toString not found'],
      ['read', false, 'ok ok'],
    ]);
    expect(harness.executed.map((call) => call.toolCall.id)).toEqual(['ok']);
    for (const id of ['u0', 'u1', 'u2']) {
      const own = harness.sink.events.filter(
        (event) => 'toolCallId' in event && event.toolCallId === id,
      );
      expect(
        own.map((event) => [event.type, 'isError' in event ? event.isError : undefined]),
      ).toEqual([
        ['tool_execution_start', undefined],
        ['tool_execution_end', true],
      ]);
    }
    expectEveryToolCallAnswered(harness.transcript.messages);
  });
});

describe('R7: prepareArguments', () => {
  test('R7: a legacy {path, oldText, newText} is lifted into edits[] and then validated', async () => {
    const raw = { path: 'a.txt', oldText: 'before', newText: 'after' };
    const call = toolCall('c1', 'edit', raw);
    const outcome = await preflight([editTool], call);
    expect(preparedArgs(outcome)).toEqual({
      path: 'a.txt',
      edits: [{ oldText: 'before', newText: 'after' }],
    });
    // The assistant message still holds what the model sent.
    expect(call.arguments).toEqual({ path: 'a.txt', oldText: 'before', newText: 'after' });
  });

  test('R7, R8: the lifted shape is validated (and coerced) like any other arguments', async () => {
    const coerced = await preflight(
      [editTool],
      toolCall('c1', 'edit', { path: 'a.txt', oldText: 5, newText: true }),
    );
    expect(preparedArgs(coerced)).toEqual({
      path: 'a.txt',
      edits: [{ oldText: '5', newText: 'true' }],
    });

    const invalid = await preflight(
      [editTool],
      toolCall('c2', 'edit', { path: 'a.txt', oldText: ['x'], newText: 'y' }),
    );
    expect(immediateText(invalid)).toContain('edits.0.oldText: must be string');
  });

  test('R7: a throwing prepareArguments gives its message as the error result', async () => {
    const tool: ToolSpec = {
      ...readTool,
      prepareArguments: () => {
        throw new Error('legacy shape "mode" is no longer supported');
      },
    };
    const outcome = await preflight([tool], toolCall('c1', 'read', { path: 'a', mode: 1 }));
    expect(immediateText(outcome)).toBe('legacy shape "mode" is no longer supported');
  });

  test('R7: prepareArguments output that fails the schema is an error result, never executed', async () => {
    const tool: ToolSpec = { ...editTool, prepareArguments: () => ({ path: 7, edits: [] }) };
    const harness = agentHarness({
      tools: [tool],
      answers: [
        assistant([
          toolCall('c1', 'edit', { path: 'a.txt', edits: [{ oldText: 'a', newText: 'b' }] }),
        ]),
        assistant([text('done')]),
      ],
    });
    await harness.run();
    expect(harness.executed).toEqual([]);
    const message = textOfResult(resultsOf(harness.transcript.messages)[0]);
    expect(message).toContain('Validation failed for tool "edit"');
    expect(message).toContain('edits: must not have fewer than 1 items');
    // R8: the message shows the arguments as the model sent them, not the shim's output.
    expect(message).toContain('"oldText": "a"');
    expect(message).not.toContain('"path": 7');
    expect(resultsOf(harness.transcript.messages)[0]!.isError).toBe(true);
  });

  test('R7: prepareArguments receives the raw arguments and the body receives the lifted ones', async () => {
    const seen: unknown[] = [];
    const tool: ToolSpec = {
      ...editTool,
      prepareArguments: (raw) => {
        seen.push(raw);
        return liftLegacyEdit(raw);
      },
    };
    const raw = { path: 'a.txt', oldText: 'x', newText: 'y' };
    const harness = agentHarness({
      tools: [tool],
      answers: [assistant([toolCall('c1', 'edit', raw)]), assistant([text('done')])],
    });
    await harness.run();
    expect(seen).toEqual([raw]);
    expect(harness.executed.map((call) => call.args)).toEqual([
      { path: 'a.txt', edits: [{ oldText: 'x', newText: 'y' }] },
    ]);
  });

  test('R7: a tool without prepareArguments does not accept the legacy shape', async () => {
    const plain: ToolSpec = {
      ...editTool,
      prepareArguments: undefined,
      parameters: editTool.parameters,
    };
    const outcome = await preflight(
      [plain],
      toolCall('c1', 'edit', { path: 'a.txt', oldText: 'x', newText: 'y' }),
    );
    expect(immediateText(outcome)).toContain('edits: must have required properties edits');
  });

  test('R7: a schema-typed shim is still checked against the schema (Type.Object stays strict)', async () => {
    const strict: ToolSpec = {
      ...readTool,
      parameters: Type.Object({ path: Type.String() }, { additionalProperties: false }),
      prepareArguments: (raw) => ({ ...(raw as object), sneaky: true }),
    };
    const outcome = await preflight([strict], toolCall('c1', 'read', { path: 'a' }));
    expect(immediateText(outcome)).toContain('sneaky: must not have additional properties');
  });
});
