import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileJobStore } from '../../../src/store/file/file-job-store.js';
import type { ObjectRef } from '../../../src/store/references.js';
import { objectCache } from '../../../src/transcript/cached-reader.js';

/** A real file store that counts the reads that reach it. */
async function countingStore() {
  const store = await FileJobStore.open({ folder: mkdtempSync(join(tmpdir(), 'dar-cache-')) });
  const reads: ObjectRef[] = [];
  const getObject = store.getObject.bind(store);
  store.getObject = (ref) => {
    reads.push(ref);
    return getObject(ref);
  };
  return { store, reads };
}

test('an object written through the cache is read back from it, as stored, without a store read', async () => {
  const { store, reads } = await countingStore();
  const cache = objectCache(store);
  const value = { role: 'assistant', content: [{ type: 'text', text: 'hi' }], skipped: undefined };

  const ref = await cache.putObject(value);
  const read = await cache.read(ref);

  expect(reads).toEqual([]);
  // The stored form: what the store itself returns, and not the caller's object.
  expect(read).toEqual(await store.getObject(ref));
  expect(read).not.toBe(value);
  expect(read).not.toHaveProperty('skipped');
  await store.close();
});

test('an object the cache did not write is read from the store once, then from the cache', async () => {
  const { store, reads } = await countingStore();
  const ref = await store.putObject({ n: 1 });
  const cache = objectCache(store);

  expect(await cache.read(ref)).toEqual({ n: 1 });
  expect(await cache.read(ref)).toEqual({ n: 1 });
  expect(reads).toEqual([ref]);
  await store.close();
});

test('the cache keeps at most its size, dropping the least recently used', async () => {
  const { store, reads } = await countingStore();
  const cache = objectCache(store, { maxObjects: 2 });
  const first = await cache.putObject({ n: 1 });
  const second = await cache.putObject({ n: 2 });
  await cache.read(first); // first is now the most recently used
  await cache.putObject({ n: 3 }); // drops second

  await cache.read(first);
  await cache.read(second);
  expect(reads).toEqual([second]);
  await store.close();
});

test('the cache keeps at most its characters of JSON, and never an object over an eighth of them', async () => {
  const { store, reads } = await countingStore();
  // {"t":"xxx..."}: 8 characters besides the text.
  const sized = (letter: string, length: number) => ({ t: letter.repeat(length - 8) });
  const cache = objectCache(store, { maxCharacters: 800 });
  const first = await cache.putObject(sized('a', 100));
  const large = await cache.putObject(sized('b', 101));
  const second = await cache.putObject(sized('c', 100));
  for (const letter of 'defghi') await cache.putObject(sized(letter, 100)); // 800 in all: full

  await cache.read(large);
  await cache.read(second);
  expect(reads).toEqual([large]); // too large to keep; the others all fit
  await cache.putObject(sized('k', 100)); // drops the least recently used: first
  await cache.read(first);
  await cache.read(large);
  expect(reads).toEqual([large, first, large]);
  await store.close();
});
