import { createHash } from 'node:crypto';
import { ReachableObjects } from '../../../src/retention/reachable-objects.js';
import type { JsonValue, ObjectRef } from '../../../src/store/references.js';
import { ObjectNotFound } from '../../../src/store/store-errors.js';

function refOf(seed: string): ObjectRef {
  return `sha256:${createHash('sha256').update(seed).digest('hex')}`;
}

/** Objects by reference, counting reads (the pruner reads through the job store). */
function objectsOf(entries: [ObjectRef, JsonValue][]) {
  const objects = new Map(entries);
  const reads: ObjectRef[] = [];
  const getObject = (ref: ObjectRef): Promise<JsonValue> => {
    reads.push(ref);
    const value = objects.get(ref);
    return value === undefined ? Promise.reject(new ObjectNotFound(ref)) : Promise.resolve(value);
  };
  return { getObject, reads };
}

test('follows references through objects to the end of a long chain, reading each object once', async () => {
  // A transcript-like chain: each node names the one before it and a message of its own.
  const nodes: [ObjectRef, JsonValue][] = [];
  const messages: [ObjectRef, JsonValue][] = [];
  let previous: ObjectRef | null = null;
  for (let index = 0; index < 3_000; index += 1) {
    const message = refOf(`message ${index}`);
    messages.push([message, { text: `message ${index}` }]);
    const node = refOf(`node ${index}`);
    nodes.push([node, { prev: previous, entries: [{ ref: message }, { ref: message }] }]);
    previous = node;
  }
  const store = objectsOf([...nodes, ...messages]);
  const reachable = new ReachableObjects(store);
  reachable.addRoot({ head: previous, also: refOf('not stored') });
  reachable.addRoot({ again: previous });
  await reachable.settle();
  for (const [ref] of [...nodes, ...messages]) expect(reachable.has(ref)).toBe(true);
  expect(reachable.size).toBe(6_001);
  // Each once, the one not stored too (passed over).
  expect(store.reads.length).toBe(6_001);
  expect(new Set(store.reads).size).toBe(6_001);
});

test('settleWhenMany reads the marked objects once more than 10,000 wait, so marking many roots holds few', async () => {
  const stored = Array.from({ length: 10_001 }, (_, index): [ObjectRef, JsonValue] => [
    refOf(`output ${index}`),
    { text: `output ${index}` },
  ]);
  const store = objectsOf(stored);
  const reachable = new ReachableObjects(store);
  for (const [ref] of stored.slice(0, 10_000)) {
    reachable.addRoot({ type: 'tool_execution_end', result: { contentRef: ref } });
    await reachable.settleWhenMany();
  }
  expect(store.reads.length).toBe(0);
  const [last] = stored.at(-1) ?? [];
  reachable.addRoot({ contentRef: last ?? null });
  await reachable.settleWhenMany();
  expect(store.reads.length).toBe(10_001);
  await reachable.settleWhenMany();
  expect(store.reads.length).toBe(10_001);
  expect(reachable.size).toBe(10_001);
});
