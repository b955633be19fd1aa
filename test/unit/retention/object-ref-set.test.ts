import { createHash } from 'node:crypto';
import { ObjectRefSet } from '../../../src/retention/object-ref-set.js';
import type { ObjectRef } from '../../../src/store/references.js';

function refOf(seed: string): ObjectRef {
  return `sha256:${createHash('sha256').update(seed).digest('hex')}`;
}

/** A reference whose hash is `prefix` (hex) padded with `tail` written in its last bytes. */
function refWith(prefix: string, tail: number): ObjectRef {
  const end = tail.toString(16).padStart(8, '0');
  return `sha256:${prefix}${'0'.repeat(64 - prefix.length - end.length)}${end}`;
}

test('holds what a Set holds, over adds and lookups of refs seen and unseen', () => {
  const refs = new ObjectRefSet();
  const expected = new Set<ObjectRef>();
  const disagreements: string[] = [];
  for (let step = 0; step < 60_000; step += 1) {
    // About one in three repeats an earlier reference.
    const ref = refOf(String(step % 3 === 0 ? step >> 1 : step));
    if (refs.add(ref) === expected.has(ref)) disagreements.push(`add ${ref}`);
    expected.add(ref);
  }
  for (const ref of expected) if (!refs.has(ref)) disagreements.push(`has ${ref}`);
  for (let step = 0; step < 5_000; step += 1) {
    if (refs.has(refOf(`unseen ${step}`))) disagreements.push(`unseen ${step}`);
  }
  expect(disagreements).toEqual([]);
  expect(refs.size).toBe(expected.size);
});

test('refs that share a table and a first slot stay apart (the whole hash decides)', () => {
  const refs = new ObjectRefSet();
  // The same first five bytes: one table, one starting slot, so every add probes past the others.
  const crowded = Array.from({ length: 2_000 }, (_, index) => refWith('ab12345678', index));
  for (const ref of crowded) expect(refs.add(ref)).toBe(true);
  for (const ref of crowded) expect(refs.add(ref)).toBe(false);
  expect(refs.size).toBe(2_000);
  expect(refs.has(refWith('ab12345678', 2_000))).toBe(false);
  // A hash that differs from one held in its last byte alone is not held.
  const held: ObjectRef = `sha256:${'e'.repeat(62)}00`;
  refs.add(held);
  expect(refs.has(`sha256:${'e'.repeat(62)}01`)).toBe(false);
  expect(refs.has(held)).toBe(true);
  // The all-zero hash is a reference like any other.
  const zero = refWith('', 0);
  expect(refs.has(zero)).toBe(false);
  expect(refs.add(zero)).toBe(true);
  expect(refs.has(zero)).toBe(true);
  expect(refs.size).toBe(2_002);
});

test('refuses what is not an object reference', () => {
  const refs = new ObjectRefSet();
  for (const bad of ['sha256:abc', `sha256:${'A'.repeat(64)}`, `md5:${'0'.repeat(64)}`, '']) {
    expect(() => refs.add(bad as ObjectRef)).toThrow(TypeError);
    expect(() => refs.has(bad as ObjectRef)).toThrow(TypeError);
  }
  expect(refs.size).toBe(0);
});
