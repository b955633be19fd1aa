import { Type, type TSchema } from '@sinclair/typebox';
import {
  validateArguments,
  validatorFor,
  type AssistantMessage,
  type ToolSpec,
} from '../../src/core/index.js';
import { agentHarness } from './support/harness.js';
import { assistant, text, toolCall } from './support/messages.js';
import { immediateText, preflight, preparedArgs } from './support/preflight.js';
import { editTool, settingsTool } from './support/tools.js';

function valueOf(schema: TSchema, raw: unknown): unknown {
  const outcome = validateArguments('t', schema, raw);
  if (!outcome.ok) throw new Error(outcome.message);
  return outcome.value;
}

function failuresOf(schema: TSchema, raw: unknown): string[] {
  const outcome = validateArguments('t', schema, raw);
  if (outcome.ok) throw new Error(`expected a failure, got ${JSON.stringify(outcome.value)}`);
  return outcome.failures;
}

describe('R8: coercion toward declared types', () => {
  test('R8: "3" becomes 3 for an integer and for a number; "2.5" for a number', () => {
    expect(valueOf(Type.Object({ n: Type.Integer() }), { n: '3' })).toEqual({ n: 3 });
    expect(valueOf(Type.Object({ n: Type.Number() }), { n: '3' })).toEqual({ n: 3 });
    expect(valueOf(Type.Object({ n: Type.Number() }), { n: ' 2.5 ' })).toEqual({ n: 2.5 });
    expect(valueOf(Type.Object({ n: Type.Number() }), { n: '-1e3' })).toEqual({ n: -1000 });
  });

  test('R8: strings that are not numbers of the declared kind are not coerced', () => {
    expect(failuresOf(Type.Object({ n: Type.Integer() }), { n: '2.5' })).toEqual([
      'n: must be integer',
    ]);
    expect(failuresOf(Type.Object({ n: Type.Number() }), { n: '' })).toEqual(['n: must be number']);
    expect(failuresOf(Type.Object({ n: Type.Number() }), { n: 'Infinity' })).toEqual([
      'n: must be number',
    ]);
    expect(failuresOf(Type.Object({ n: Type.Number() }), { n: 'three' })).toEqual([
      'n: must be number',
    ]);
  });

  test('R8: "true" and "false" become booleans; other strings do not', () => {
    const schema = Type.Object({ a: Type.Boolean(), b: Type.Boolean() });
    expect(valueOf(schema, { a: 'true', b: 'false' })).toEqual({ a: true, b: false });
    expect(failuresOf(schema, { a: 'yes', b: 1 })).toEqual([
      'a: must be boolean',
      'b: must be boolean',
    ]);
  });

  test('R8: numbers and booleans become strings for a string', () => {
    const schema = Type.Object({ a: Type.String(), b: Type.String() });
    expect(valueOf(schema, { a: 7, b: false })).toEqual({ a: '7', b: 'false' });
    expect(failuresOf(schema, { a: null, b: {} })).toEqual([
      'a: must be string',
      'b: must be string',
    ]);
  });

  test('R8: nested arrays and objects are coerced all the way down', () => {
    const schema = Type.Object({
      rows: Type.Array(
        Type.Object({
          id: Type.Integer(),
          flags: Type.Array(Type.Boolean()),
          meta: Type.Object({ weight: Type.Number(), name: Type.String() }),
        }),
      ),
      matrix: Type.Array(Type.Array(Type.Number())),
    });
    expect(
      valueOf(schema, {
        rows: [
          { id: '1', flags: ['true', false], meta: { weight: '0.5', name: 12 } },
          { id: 2, flags: [], meta: { weight: 3, name: 'x' } },
        ],
        matrix: [['1', 2], [], ['3.5']],
      }),
    ).toEqual({
      rows: [
        { id: 1, flags: [true, false], meta: { weight: 0.5, name: '12' } },
        { id: 2, flags: [], meta: { weight: 3, name: 'x' } },
      ],
      matrix: [[1, 2], [], [3.5]],
    });
  });

  test('R8: a union of Integer then String', () => {
    const schema = Type.Object({ v: Type.Union([Type.Integer(), Type.String()]) });
    expect(valueOf(schema, { v: 4 })).toEqual({ v: 4 });
    expect(valueOf(schema, { v: true })).toEqual({ v: 'true' });
    expect(valueOf(schema, { v: 2.5 })).toEqual({ v: '2.5' });
    // A value one branch accepts as it is stays as it is (a string is a valid answer here);
    // Pi v0.73 would turn it into 3 because it coerces toward the first branch first.
    expect(valueOf(schema, { v: '3' })).toEqual({ v: '3' });
    expect(failuresOf(schema, { v: null })).toContain('v: must be integer');
  });

  test('R8: a union of Boolean then Number', () => {
    const schema = Type.Object({ v: Type.Union([Type.Boolean(), Type.Number()]) });
    expect(valueOf(schema, { v: 'true' })).toEqual({ v: true });
    expect(valueOf(schema, { v: 'false' })).toEqual({ v: false });
    expect(valueOf(schema, { v: '2.5' })).toEqual({ v: 2.5 });
    expect(valueOf(schema, { v: 1 })).toEqual({ v: 1 });
    expect(failuresOf(schema, { v: 'maybe' })).toEqual(
      expect.arrayContaining(['v: must be boolean', 'v: must be number']),
    );
  });

  test('R8: union branches are tried in order; the first that passes after coercion wins', () => {
    const numberFirst = Type.Object({ a: Type.Number(), b: Type.String() });
    const stringFirst = Type.Object({ a: Type.String(), b: Type.Number() });
    const raw = { a: '1', b: '2' };
    expect(valueOf(Type.Union([numberFirst, stringFirst]), raw)).toEqual({ a: 1, b: '2' });
    expect(valueOf(Type.Union([stringFirst, numberFirst]), raw)).toEqual({ a: '1', b: 2 });
  });

  test('R8: a list of types in `type` is tried in order', () => {
    const schema = {
      type: 'object',
      properties: { v: { type: ['integer', 'boolean'] } },
    } as unknown as TSchema;
    expect(valueOf(schema, { v: '3' })).toEqual({ v: 3 });
    expect(valueOf(schema, { v: 'true' })).toEqual({ v: true });
  });

  test('R8: a failed union branch leaves no half-coerced value behind', () => {
    const schema = Type.Object({
      v: Type.Union([
        Type.Object({ n: Type.Number(), must: Type.Literal('x') }),
        Type.Object({ n: Type.String() }),
      ]),
    });
    expect(valueOf(schema, { v: { n: '5' } })).toEqual({ v: { n: '5' } });
    expect(valueOf(schema, { v: { n: 5 } })).toEqual({ v: { n: '5' } });
  });
});

describe('R8: failure messages', () => {
  test("R8: every failing path is listed in Pi's words and the raw arguments are shown indented", async () => {
    const raw = {
      edits: [{ oldText: { nested: true }, newText: 'x' }, { oldText: 'a' }],
      extra: 1,
    };
    const outcome = await preflight([editTool], toolCall('c1', 'edit', raw));
    const message = immediateText(outcome);
    expect(message.split('\n')).toEqual([
      'Validation failed for tool "edit":',
      '  - path: must have required properties path',
      '  - edits.0.oldText: must be string',
      '  - edits.1.newText: must have required properties newText',
      '',
      'Received arguments:',
      ...JSON.stringify(raw, null, 2).split('\n'),
    ]);
  });

  test('R8: the arguments shown are the raw ones, not the coerced copy', () => {
    const raw = { count: '3', ratio: 'x', enabled: 'true', label: 5 };
    const outcome = validateArguments('settings', settingsTool.parameters, raw);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.failures).toEqual(['ratio: must be number']);
    expect(outcome.message).toContain(
      JSON.stringify({ count: '3', ratio: 'x', enabled: 'true', label: 5 }, null, 2),
    );
  });

  test('R8: a huge argument is cut in the message', () => {
    const huge = 'x'.repeat(100_000);
    const outcome = validateArguments('settings', settingsTool.parameters, { label: huge });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.message.length).toBeLessThan(3_000);
    expect(outcome.message).toMatch(/\.\.\. \(\d+ more characters\)$/);
  });

  test.each([null, [], 'a string', 42, true])(
    'R8: non-object arguments %j fail at the root (named `root`, as in Pi)',
    (raw) => {
      expect(failuresOf(settingsTool.parameters, raw)).toEqual(['root: must be object']);
    },
  );

  test('R8: arguments nested deeper than the limit are refused, not a stack overflow', async () => {
    let deep: unknown = {};
    for (let level = 0; level < 5000; level += 1) deep = { a: deep };
    const outcome = await preflight([settingsTool], toolCall('c1', 'settings', deep));
    expect(immediateText(outcome)).toMatch(/nested deeper than 200 levels/);
  });
});

describe("R8: failure texts in Pi's words", () => {
  test('R8: a list of types reads "must be either a or b"; limits read "must not"', () => {
    const schema = {
      type: 'object',
      properties: { v: { type: ['integer', 'boolean'] }, tags: { type: 'array', maxItems: 1 } },
    } as unknown as TSchema;
    expect(failuresOf(schema, { v: 'maybe', tags: [1, 2] })).toEqual([
      'v: must be either integer or boolean',
      'tags: must not have more than 1 items',
    ]);
  });

  test('R8: a missing field and an unexpected field are each named by path', () => {
    const schema = Type.Object({ path: Type.String() }, { additionalProperties: false });
    expect(failuresOf(schema, { sneaky: 1 })).toEqual([
      'path: must have required properties path',
      'sneaky: must not have additional properties',
    ]);
  });
});

describe('R8: validation works on a copy', () => {
  test('R8: the assistant message and its arguments object are untouched; the tool gets another object', async () => {
    const args = { count: '3', ratio: '0.5', enabled: 'true', label: 9, nested: { keep: ['1'] } };
    const answer = assistant([toolCall('c1', 'settings', args)]);
    const harness = agentHarness({
      tools: [settingsTool],
      answers: [() => answer, assistant([text('done')])],
    });
    // The scripted model hands the loop a clone of `answer`: this snapshot equals it at first.
    const snapshot = structuredClone(answer);
    await harness.run();

    const inTranscript = harness.transcript.messages[1] as AssistantMessage;
    const executed = harness.executed[0]!;
    expect(executed.args).toEqual({
      count: 3,
      ratio: 0.5,
      enabled: true,
      label: '9',
      nested: { keep: ['1'] },
    });
    expect(inTranscript).toEqual(snapshot);
    expect(executed.toolCall).toBe(inTranscript.content[0]);
    expect(executed.args).not.toBe(executed.toolCall.arguments);
    expect((executed.args as { nested: unknown }).nested).not.toBe(
      (executed.toolCall.arguments as { nested: unknown }).nested,
    );
  });

  test('R8: preflight does not touch the raw arguments object', async () => {
    const call = toolCall('c1', 'edit', {
      path: 1,
      edits: [{ oldText: 2, newText: false }],
    });
    const before = structuredClone(call);
    const rawObject = call.arguments;
    const args = preparedArgs(await preflight([editTool], call));
    expect(args).toEqual({ path: '1', edits: [{ oldText: '2', newText: 'false' }] });
    expect(call).toEqual(before);
    expect(call.arguments).toBe(rawObject);
    expect(Object.isFrozen(rawObject)).toBe(false);
  });

  test('R8: `__proto__` and `constructor` keys stay plain keys and pollute nothing', async () => {
    const raw: unknown = JSON.parse(
      '{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}, "n": "4"}',
    );
    const tool: ToolSpec = {
      name: 'open',
      label: 'open',
      description: 'open object',
      parameters: {
        type: 'object',
        properties: { n: { type: 'number' } },
        additionalProperties: { type: 'object' },
      } as unknown as TSchema,
    };
    const args = preparedArgs(await preflight([tool], toolCall('c1', 'open', raw))) as Record<
      string,
      unknown
    >;
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect(Object.keys(args).sort()).toEqual(['__proto__', 'constructor', 'n']);
    expect(args.n).toBe(4);
    expect(Object.getOwnPropertyDescriptor(args, '__proto__')?.value).toEqual({ polluted: 'yes' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('validatorFor', () => {
  test('R8: the same schema object compiles once; another object compiles its own', () => {
    const schema = Type.Object({ a: Type.String() });
    const first = validatorFor(schema);
    expect(validatorFor(schema)).toBe(first);
    validateArguments('t', schema, { a: 1 });
    validateArguments('t', schema, { a: 'x' });
    expect(validatorFor(schema)).toBe(first);
    const twin = Type.Object({ a: Type.String() });
    const other = validatorFor(twin);
    expect(other).not.toBe(first);
    expect(validatorFor(twin)).toBe(other);
    expect(first({ a: 'x' })).toBe(true);
    expect(first({ a: 1 })).toBe(false);
  });
});
