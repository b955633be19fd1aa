import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { referencesIn } from '../../../src/retention/reference-scan.js';
import { RECORD_NAMESPACES } from '../../../src/retention/prune-store.js';
import type { JsonValue, ObjectRef } from '../../../src/store/references.js';

const SOURCE = fileURLToPath(new URL('../../../src', import.meta.url));

function refOf(digit: string): ObjectRef {
  return `sha256:${digit.repeat(64)}`;
}

function found(value: JsonValue): ObjectRef[] {
  const refs: ObjectRef[] = [];
  referencesIn(value, (ref) => refs.push(ref));
  return refs.sort();
}

test('finds references wherever a value holds them: alone, inside text, in nested arrays and in property names', () => {
  const value: JsonValue = {
    prev: refOf('a'),
    entries: [{ ref: refOf('b') }, { role: 'toolResult', contentRef: refOf('c') }],
    note: `stored as ${refOf('d')}, see there`,
    [refOf('e')]: 1,
    deep: [[[{ summaryRef: refOf('f') }]]],
  };
  expect(found(value)).toEqual(['a', 'b', 'c', 'd', 'e', 'f'].map(refOf));
});

test('passes over what only resembles a reference', () => {
  expect(
    found({ short: 'sha256:abc', upper: `sha256:${'A'.repeat(64)}`, number: 42, none: null }),
  ).toEqual([]);
});

test('the pruner handles every record namespace the runner writes', () => {
  const declared = new Set<string>();
  const files = readdirSync(SOURCE, { recursive: true, encoding: 'utf8' });
  for (const file of files.filter((name) => name.endsWith('.ts'))) {
    const text = readFileSync(join(SOURCE, file), 'utf8');
    for (const match of text.matchAll(/export const \w+_RECORD = '([^']+)'/g)) {
      declared.add(match[1] as string);
    }
  }
  expect(declared.size).toBeGreaterThanOrEqual(4);
  expect([...declared].sort()).toEqual([...RECORD_NAMESPACES].sort());
});
