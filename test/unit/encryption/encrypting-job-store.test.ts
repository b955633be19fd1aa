import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EncryptingJobStore } from '../../../src/encryption/encrypting-job-store.js';
import { keyringOf, type EncryptionKey } from '../../../src/encryption/encryption-keys.js';
import { FileJobStore } from '../../../src/store/file/file-job-store.js';
import { NotJsonError, objectRef } from '../../../src/store/index.js';
import { folderText } from '../../support/agent-harness.js';

const key = (id: string): EncryptionKey => ({ id, key: randomBytes(32) });

async function openStores(keys: EncryptionKey[], current: string, folder?: string) {
  const root = folder ?? mkdtempSync(join(tmpdir(), 'dar-sealed-store-'));
  const plain = await FileJobStore.open({
    folder: root,
    flushWrites: false,
    follow: { intervalMs: 20 },
  });
  return { root, plain, sealed: new EncryptingJobStore(plain, keyringOf(keys, current)) };
}

test('objects, events and records read back, and no plaintext is on disk', async () => {
  const { root, sealed } = await openStores([key('k1')], 'k1');
  const message = { role: 'user', content: 'the SECRET-PROMPT text', order: { z: 1, a: 2 } };
  const ref = await sealed.putObject(message);
  expect(await sealed.putObject(message)).toBe(ref); // idempotent (R24)
  expect(JSON.stringify(await sealed.getObject(ref))).toBe(JSON.stringify(message)); // key order kept
  expect(await sealed.getObjects([ref])).toEqual([message]);

  await sealed.appendEvents('job-1', [
    { seq: 1, event: { type: 'tool_result', text: 'SECRET-RESULT' } },
  ]);
  // A retried append of the same event is skipped, not a conflict.
  await sealed.appendEvents('job-1', [
    { seq: 1, event: { type: 'tool_result', text: 'SECRET-RESULT' } },
  ]);
  expect(await sealed.readEvents('job-1')).toEqual([
    { seq: 1, event: { type: 'tool_result', text: 'SECRET-RESULT' } },
  ]);
  await sealed.putRecord('journal', 'call-1', { args: 'SECRET-ARGS' });
  expect(await sealed.getRecord('journal', 'call-1')).toEqual({ args: 'SECRET-ARGS' });
  expect(await sealed.getRecord('journal', 'missing')).toBeUndefined();

  const disk = folderText(root);
  expect(disk).toContain('"darEncrypted":1');
  expect(disk).not.toMatch(/SECRET/);
  await expect(sealed.putObject({ bad: undefined as unknown as number, n: NaN })).rejects.toThrow(
    NotJsonError,
  );
  await sealed.close();
});

test('a prepared object is sealed when prepared: its ref is the sealed record hash, and it reads back decrypted', async () => {
  const { root, sealed } = await openStores([key('k1')], 'k1');
  const answer = { role: 'assistant', content: 'the SECRET-ANSWER' };
  const preparedAnswer = sealed.prepareObject(answer);
  expect(preparedAnswer.ref).not.toBe(objectRef(answer));
  const node = { prev: null, entries: [{ ref: preparedAnswer.ref }] };
  const preparedNode = sealed.prepareObject(node);
  await sealed.putPreparedObjects([preparedAnswer, preparedNode]);
  expect(await sealed.getObjects([preparedNode.ref, preparedAnswer.ref])).toEqual([node, answer]);
  expect(folderText(root)).not.toMatch(/SECRET/);
  await sealed.close();
});

test('followEvents yields decrypted events', async () => {
  const { sealed } = await openStores([key('k1')], 'k1');
  await sealed.appendEvents('job-2', [
    { seq: 1, event: { n: 1 } },
    { seq: 2, event: { n: 2 } },
  ]);
  const abort = new AbortController();
  const seen: unknown[] = [];
  for await (const stored of sealed.followEvents('job-2', 0, abort.signal)) {
    seen.push(stored.event);
    if (seen.length === 2) abort.abort();
  }
  expect(seen).toEqual([{ n: 1 }, { n: 2 }]);
});

test('after a key rotation, values sealed with the old key still read; plain values too', async () => {
  const k1 = key('k1');
  const k2 = key('k2');
  const first = await openStores([k1], 'k1');
  const oldRef = await first.sealed.putObject({ text: 'written with k1' });
  const plainRef = await first.plain.putObject({ text: 'written before encryption' });
  const rotated = await openStores([k1, k2], 'k2', first.root);
  const newRef = await rotated.sealed.putObject({ text: 'written with k2' });
  expect(await rotated.sealed.getObjects([oldRef, newRef, plainRef])).toEqual([
    { text: 'written with k1' },
    { text: 'written with k2' },
    { text: 'written before encryption' },
  ]);
  expect(await rotated.plain.getObject(newRef)).toMatchObject({ darEncrypted: 1, key: 'k2' });
  const withoutOld = await openStores([k2], 'k2', first.root);
  await expect(withoutOld.sealed.getObject(oldRef)).rejects.toThrow(/"k1"/);
});
