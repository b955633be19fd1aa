import { canonicalJson, NotJsonError, objectRef, isObjectRef } from '../../../src/store/index.js';

describe('canonicalJson', () => {
  test('sorts keys at every depth and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: null, y: 'x' }], c: true } })).toBe(
      '{"a":{"c":true,"d":[3,{"y":"x","z":null}]},"b":1}',
    );
  });

  test('writes strings and numbers as JSON does', () => {
    expect(canonicalJson(['é\n"\u0000', -0, 1e21, 0.1])).toBe('["é\\n\\"\\u0000",0,1e+21,0.1]');
  });

  test('keeps __proto__ as an ordinary key', () => {
    const value = JSON.parse('{"__proto__":{"x":1},"a":2}') as unknown;
    expect(canonicalJson(value)).toBe('{"__proto__":{"x":1},"a":2}');
  });

  test('leaves out undefined object properties, as JSON does', () => {
    expect(canonicalJson({ a: 1, b: undefined })).toBe('{"a":1}');
  });

  test.each([
    ['undefined at the top', undefined],
    ['undefined in an array', [1, undefined]],
    // eslint-disable-next-line no-sparse-arrays -- a hole is the case under test
    ['a hole in an array', [1, , 3]],
    ['a function', { f: () => 1 }],
    ['a symbol', [Symbol('s')]],
    ['NaN', { n: NaN }],
    ['Infinity', [-Infinity]],
    ['a bigint', { big: 1n }],
    ['a Date', new Date(0)],
    ['a Map', new Map()],
  ])('refuses %s', (_name, value) => {
    expect(() => canonicalJson(value)).toThrow(NotJsonError);
  });

  test('refuses a cycle but accepts a shared (acyclic) value', () => {
    const shared = { s: 1 };
    expect(canonicalJson([shared, shared])).toBe('[{"s":1},{"s":1}]');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow('refers back to itself');
  });

  test('names the path of the bad value', () => {
    expect(() => canonicalJson({ content: [{ text: 'a' }, { n: NaN }] })).toThrow(
      '$.content[1].n is NaN',
    );
  });
});

describe('objectRef', () => {
  test('is sha256 of the canonical JSON, whatever the key order', () => {
    // sha256 of the text {"a":1,"b":2}
    const expected = 'sha256:43258cff783fe7036d8a43033f830adfc60ec037382473548ac742b888292777';
    expect(objectRef({ a: 1, b: 2 })).toBe(expected);
    expect(objectRef({ b: 2, a: 1 })).toBe(expected);
    expect(isObjectRef(expected)).toBe(true);
    expect(isObjectRef('sha256:ABC')).toBe(false);
  });
});
