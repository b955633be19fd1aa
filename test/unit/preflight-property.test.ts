import fc from 'fast-check';
import { Type } from '@sinclair/typebox';
import {
  validatorFor,
  type BeforeToolCallHook,
  type PreflightOutcome,
  type ToolSpec,
} from '../../src/core/index.js';
import { toolCall } from './support/messages.js';
import { preflight } from './support/preflight.js';
import { editTool, settingsTool } from './support/tools.js';

const unionTool: ToolSpec = {
  name: 'union',
  label: 'union',
  description: 'unions and nesting',
  parameters: Type.Object({
    mode: Type.Union([Type.Literal('fast'), Type.Literal('safe')]),
    value: Type.Union([Type.Integer(), Type.Boolean(), Type.String()]),
    items: Type.Optional(
      Type.Array(Type.Union([Type.Number(), Type.Object({ k: Type.String() })])),
    ),
  }),
};

const strictTool: ToolSpec = {
  name: 'strict',
  label: 'strict',
  description: 'no extra keys',
  parameters: Type.Object(
    { path: Type.String({ minLength: 1 }), limit: Type.Optional(Type.Integer({ minimum: 0 })) },
    { additionalProperties: false },
  ),
};

const tools = [settingsTool, editTool, unionTool, strictTool];

function nested(levels: number): unknown {
  let value: unknown = { leaf: 'x' };
  for (let level = 0; level < levels; level += 1) value = level % 2 ? [value] : { a: value };
  return value;
}

const hostileConstants: unknown[] = [
  null,
  undefined,
  [],
  [1, 2, 3],
  'a string',
  '',
  0,
  -0,
  Number.NaN,
  Infinity,
  true,
  'x'.repeat(100_000),
  { label: 'y'.repeat(100_000), path: 'z'.repeat(100_000) },
  nested(5000),
  nested(199),
  nested(201),
  JSON.parse('{"__proto__": {"polluted": true}, "path": "a"}'),
  JSON.parse('{"constructor": {"prototype": {"polluted": true}}, "path": "a"}'),
  JSON.parse('{"path": "a", "edits": [{"__proto__": {"oldText": "x"}, "newText": "y"}]}'),
  JSON.parse('{"mode": "fast", "value": {"__proto__": null}, "items": [{"__proto__": {"k": 1}}]}'),
  Object.create(null),
  { toString: 'not a function', valueOf: 7, count: '1' },
];

const hostileKey = fc.constantFrom(
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'path',
  'edits',
  'oldText',
  'newText',
  'count',
  'ratio',
  'enabled',
  'label',
  'mode',
  'value',
  'items',
  'limit',
);

const leaf = fc.oneof(
  fc.string(),
  fc.constantFrom('3', '-2', '2.5', 'true', 'false', ' 7 ', '1e400', 'NaN', 'fast', 'safe'),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);

/** JSON-shaped values built from hostile keys; round-tripped through JSON so `__proto__` is own. */
const shaped = fc
  .letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', maxDepth: 4 },
      leaf,
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(hostileKey, tie('value'), { maxKeys: 6 }),
    ),
  }))
  .value.map((value) => JSON.parse(JSON.stringify(value) ?? 'null') as unknown);

/** Arguments close to each schema: right keys, values of the right type, coercible or wrong. */
const maybe = <T>(arbitrary: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 4, arbitrary }, { weight: 1, arbitrary: leaf });
const numericString = fc.integer({ min: -1000, max: 1000 }).map(String);
const extraKeys = fc.oneof(
  { weight: 3, arbitrary: fc.constant({}) },
  { weight: 1, arbitrary: fc.dictionary(hostileKey, leaf, { maxKeys: 2 }) },
);
const withExtras = (base: fc.Arbitrary<object>) =>
  fc
    .tuple(base, extraKeys)
    .map(([value, extra]) => JSON.parse(JSON.stringify({ ...value, ...extra })) as unknown);

/** Per tool: arguments close to its schema, so that a good share of runs is prepared. */
const nearlyValid: Record<string, fc.Arbitrary<unknown>> = {
  settings: withExtras(
    fc.record({
      count: maybe(fc.oneof(fc.integer(), numericString)),
      ratio: maybe(fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), numericString)),
      enabled: maybe(fc.oneof(fc.boolean(), fc.constantFrom('true', 'false'))),
      label: maybe(fc.oneof(fc.string(), fc.integer(), fc.boolean())),
    }),
  ),
  edit: withExtras(
    fc.oneof(
      fc.record({
        path: maybe(fc.string()),
        edits: maybe(
          fc.array(fc.record({ oldText: maybe(fc.string()), newText: maybe(fc.string()) }), {
            maxLength: 3,
          }),
        ),
      }),
      fc.record({ path: maybe(fc.string()), oldText: maybe(fc.string()), newText: leaf }),
    ),
  ),
  union: withExtras(
    fc.record(
      {
        mode: fc.constantFrom('fast', 'safe', 'FAST', 1),
        value: leaf,
        items: fc.array(fc.oneof(leaf, fc.record({ k: leaf })), { maxLength: 3 }),
      },
      { requiredKeys: ['mode', 'value'] },
    ),
  ),
  strict: withExtras(
    fc.record(
      { path: maybe(fc.string({ minLength: 1 })), limit: maybe(fc.oneof(fc.nat(), numericString)) },
      { requiredKeys: ['path'] },
    ),
  ),
};

const anything = fc.anything({
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withTypedArray: true,
  maxDepth: 4,
});

const hostileArguments = fc.oneof(
  shaped,
  anything,
  fc.jsonValue({ maxDepth: 4 }),
  fc.constantFrom(...hostileConstants),
);

const toolName = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...tools.map((tool) => tool.name)) },
  { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'toString', 'missing') },
);

/** A tool name with arguments: near its schema half of the time, anything hostile otherwise. */
const namedCall = fc.oneof(
  fc.tuple(toolName, hostileArguments),
  ...tools.map((tool) => fc.tuple(fc.constant(tool.name), nearlyValid[tool.name]!)),
);

/** The hook is absent, lets the call through, or rewrites its arguments to another hostile value. */
const hookChoice = fc.oneof(
  fc.constant(undefined),
  fc.constant<BeforeToolCallHook>(() => undefined),
  hostileArguments.map((args): BeforeToolCallHook => () => ({ args })),
);

function textOf(outcome: PreflightOutcome): string {
  if (outcome.kind !== 'immediate') return '';
  return outcome.result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

function snapshotOf(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

const prototypesBefore = [Object.prototype, Array.prototype, Function.prototype].map((proto) =>
  Object.getOwnPropertyNames(proto).sort(),
);

test('R6-R12, R8: preflight never throws; hostile arguments are prepared (and valid) or answered with an error text', async () => {
  let prepared = 0;
  let immediate = 0;
  await fc.assert(
    fc.asyncProperty(namedCall, hookChoice, async ([name, args], hook) => {
      const call = toolCall('c1', name, args);
      const before = snapshotOf(args);
      // A rejection here fails the property: preflight must never throw.
      const outcome = await preflight(tools, call, hook ? { beforeToolCall: hook } : {});
      expect(outcome.toolCall).toBe(call);
      if (outcome.kind === 'prepared') {
        prepared += 1;
        const tool = tools.find((candidate) => candidate.name === name)!;
        expect(validatorFor(tool.parameters)(outcome.args)).toBe(true);
        expect(Object.isFrozen(outcome.args)).toBe(true);
        expect(outcome.args).not.toBe(args);
      } else {
        immediate += 1;
        expect(outcome.kind).toBe('immediate');
        if (outcome.kind !== 'immediate') return;
        expect(outcome.isError).toBe(true);
        expect(textOf(outcome).length).toBeGreaterThan(0);
        expect(textOf(outcome).length).toBeLessThan(10_000);
      }
      // The raw arguments are never modified.
      expect(call.arguments).toBe(args);
      expect(snapshotOf(args)).toBe(before);
    }),
    { numRuns: 3000 },
  );
  // Both outcomes happen: the generator is not trivially one-sided.
  expect(prepared).toBeGreaterThan(300);
  expect(immediate).toBeGreaterThan(300);

  const prototypesAfter = [Object.prototype, Array.prototype, Function.prototype].map((proto) =>
    Object.getOwnPropertyNames(proto).sort(),
  );
  expect(prototypesAfter).toEqual(prototypesBefore);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.getPrototypeOf({})).toBe(Object.prototype);
});

test('R8: every hostile constant is answered without throwing, for every tool', async () => {
  for (const tool of tools) {
    for (const args of hostileConstants) {
      const outcome = await preflight(tools, toolCall('c1', tool.name, args));
      if (outcome.kind === 'prepared') {
        expect(validatorFor(tool.parameters)(outcome.args)).toBe(true);
      } else {
        expect(outcome.kind).toBe('immediate');
        expect(textOf(outcome).length).toBeGreaterThan(0);
      }
    }
  }
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});
