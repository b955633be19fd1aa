import { Type } from '@sinclair/typebox';
import {
  usePatternEngine,
  validateArguments,
  validatorFor,
  type ToolSpec,
} from '../../src/core/index.js';
import { linearPatternEngine, toRe2Syntax } from '../../src/core/schema-patterns.js';
import { toolCall } from './support/messages.js';
import { immediateText, preflight } from './support/preflight.js';

/** A pattern JavaScript's engine takes exponential time on, for a word run ending in `!`. */
const NESTED_QUANTIFIER = '^(\\w+\\s?)*$';

afterEach(() => usePatternEngine('linear'));

describe('schema patterns in linear time (R8)', () => {
  test('JavaScript Unicode escapes are written as RE2 reads them; other escapes are kept', () => {
    expect(toRe2Syntax('^\\u0041+$')).toBe('^\\x{0041}+$');
    expect(toRe2Syntax('\\u{1F600}')).toBe('\\x{1F600}');
    expect(toRe2Syntax('\\\\u0041')).toBe('\\\\u0041');
    expect(toRe2Syntax('\\d\\.\\w')).toBe('\\d\\.\\w');
    expect(toRe2Syntax('\\uZZ')).toBe('\\uZZ');
    expect(linearPatternEngine('^\\u00e9t\\u00e9$', 'u').test('été')).toBe(true);
  });

  test('R8: a nested-quantifier pattern checks a 100,000-character argument quickly and rightly', () => {
    const schema = Type.Object({ title: Type.String({ pattern: NESTED_QUANTIFIER }) });
    const words = 'word '.repeat(20_000);
    const started = Date.now();
    const failing = validateArguments('t', schema, { title: `${words}!` });
    const passing = validateArguments('t', schema, { title: words });
    // Backtracking would take far longer than the workflow task's 2 s deadlock limit.
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(failing.ok).toBe(false);
    expect(failing.ok ? [] : failing.failures).toEqual([
      `title: must match pattern "${NESTED_QUANTIFIER}"`,
    ]);
    expect(passing.ok).toBe(true);
  });

  test('R8: patternProperties are matched by the same engine', () => {
    const schema = Type.Object({}, { patternProperties: { '^x-[a-z]+$': Type.Integer() } });
    expect(validateArguments('t', schema, { 'x-size': 3 }).ok).toBe(true);
    expect(validateArguments('t', schema, { 'x-size': 'big' }).ok).toBe(false);
    // A key the pattern does not match is not checked against its schema.
    expect(validateArguments('t', schema, { 'y-size': 'big' }).ok).toBe(true);
  });

  test('a lookahead or a backreference is refused, saying why', () => {
    expect(() => validatorFor(Type.String({ pattern: '^(?=a)a+$' }))).toThrow(
      /is not one the linear-time matcher \(RE2\) accepts .*backreferences and lookaround/,
    );
    expect(() => validatorFor(Type.String({ pattern: '^(a)\\1$' }))).toThrow(/RE2/);
  });

  test('R8: a tool whose schema RE2 refuses answers its call with an error result, not a crash', async () => {
    const tool: ToolSpec = {
      name: 'tag',
      label: 'tag',
      description: 'tags',
      parameters: Type.Object({ tag: Type.String({ pattern: '^(?!x)\\w+$' }) }),
    };
    const outcome = await preflight([tool], toolCall('c1', 'tag', { tag: 'ok' }));
    expect(immediateText(outcome)).toMatch(/linear-time matcher \(RE2\)/);
  });

  test('the backtracking engine, kept for jobs an earlier release started, accepts lookaround', () => {
    usePatternEngine('backtracking');
    const schema = Type.String({ pattern: '^(?=a)a+$' });
    expect(validatorFor(schema)('aaa')).toBe(true);
    expect(validatorFor(schema)('baa')).toBe(false);
  });
});
