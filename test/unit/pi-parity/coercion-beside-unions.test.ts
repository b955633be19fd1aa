import { Type, type TSchema } from '@sinclair/typebox';
import { validateArguments } from '../../../src/core/index.js';

function valueOf(schema: unknown, raw: unknown): unknown {
  const outcome = validateArguments('t', schema as TSchema, raw);
  if (!outcome.ok) throw new Error(outcome.message);
  return outcome.value;
}

describe('R8: coercion covers every part of a schema beside anyOf/oneOf', () => {
  test('R8: own properties are coerced next to anyOf: { a: "1" } becomes { a: 1 }', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'string' } },
      anyOf: [{ required: ['a'] }, { required: ['b'] }],
    };
    expect(valueOf(schema, { a: '1' })).toEqual({ a: 1 });
    expect(valueOf(schema, { b: 2 })).toEqual({ b: '2' });
  });

  test('R8: own type is coerced next to oneOf', () => {
    const schema = { type: 'integer', oneOf: [{ minimum: 10 }, { maximum: 0 }] };
    expect(valueOf({ type: 'object', properties: { n: schema } }, { n: '12' })).toEqual({ n: 12 });
  });

  test('R8: allOf parts are coerced next to a union', () => {
    const schema = {
      allOf: [{ type: 'object', properties: { count: { type: 'integer' } } }],
      oneOf: [
        { type: 'object', properties: { mode: { const: 'fast' } }, required: ['mode'] },
        { type: 'object', properties: { mode: { const: 'slow' } }, required: ['mode'] },
      ],
    };
    expect(valueOf(schema, { count: '3', mode: 'slow' })).toEqual({ count: 3, mode: 'slow' });
  });

  test('R8: both anyOf and oneOf are applied when a schema has both', () => {
    const schema = {
      type: 'object',
      properties: {
        v: {
          anyOf: [{ type: 'number' }],
          oneOf: [{ type: 'number', minimum: 5 }],
        },
      },
    };
    expect(valueOf(schema, { v: '7' })).toEqual({ v: 7 });
  });

  test('R8 (deliberate difference from Pi): a value a branch already accepts stays as it is', () => {
    const schema = Type.Object({ v: Type.Union([Type.Integer(), Type.String()]) });
    expect(valueOf(schema, { v: '3' })).toEqual({ v: '3' });
  });
});
