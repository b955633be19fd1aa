import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { keyringOf, type EncryptionKey } from '../../../src/encryption/encryption-keys.js';
import { AesGcmPayloadCodec, KEY_ID_METADATA } from '../../../src/encryption/payload-codec.js';

const key = (id: string): EncryptionKey => ({ id, key: randomBytes(32) });
const text = (bytes: Uint8Array | undefined | null) => Buffer.from(bytes ?? []).toString('utf8');

test('a payload round-trips, tagged with the key id, with no plaintext left', async () => {
  const codec = new AesGcmPayloadCodec(keyringOf([key('k1')], 'k1'));
  const payload = defaultPayloadConverter.toPayload({ prompt: 'the secret prompt' });
  const [encoded] = await codec.encode([payload]);
  expect(text(encoded?.metadata?.[KEY_ID_METADATA])).toBe('k1');
  expect(text(encoded?.metadata?.encoding)).toBe('binary/encrypted');
  expect(text(encoded?.data)).not.toContain('secret');
  const [decoded] = await codec.decode([encoded!]);
  expect(defaultPayloadConverter.fromPayload(decoded!)).toEqual({ prompt: 'the secret prompt' });
});

test('key rotation: payloads written with the old key still decode, new ones use the new key', async () => {
  const k1 = key('k1');
  const k2 = key('k2');
  const before = new AesGcmPayloadCodec(keyringOf([k1], 'k1'));
  const after = new AesGcmPayloadCodec(keyringOf([k1, k2], 'k2'));
  const old = await before.encode([defaultPayloadConverter.toPayload('old value')]);
  const fresh = await after.encode([defaultPayloadConverter.toPayload('new value')]);
  expect(text(fresh[0]?.metadata?.[KEY_ID_METADATA])).toBe('k2');
  const decoded = await after.decode([...old, ...fresh]);
  expect(decoded.map((payload) => defaultPayloadConverter.fromPayload(payload))).toEqual([
    'old value',
    'new value',
  ]);
  // Without the old key, the old payload is refused with the key's name.
  await expect(new AesGcmPayloadCodec(keyringOf([k2], 'k2')).decode(old)).rejects.toThrow(/"k1"/);
});

test('a changed ciphertext or a relabelled key id does not decode', async () => {
  const k1 = key('k1');
  const k2 = key('k2');
  const codec = new AesGcmPayloadCodec(keyringOf([k1, k2], 'k1'));
  const [encoded] = await codec.encode([defaultPayloadConverter.toPayload('value')]);
  const flipped = Buffer.from(encoded!.data!);
  flipped[20] = (flipped[20] ?? 0) ^ 1;
  await expect(codec.decode([{ ...encoded!, data: flipped }])).rejects.toThrow(/does not decrypt/);
  const relabelled = {
    ...encoded!,
    metadata: { ...encoded!.metadata, [KEY_ID_METADATA]: Buffer.from('k2') },
  };
  await expect(codec.decode([relabelled])).rejects.toThrow(/does not decrypt/);
});

test('payloads that were never encrypted decode as they are', async () => {
  const codec = new AesGcmPayloadCodec(keyringOf([key('k1')], 'k1'));
  const plain = defaultPayloadConverter.toPayload({ a: 1 });
  expect(await codec.decode([plain])).toEqual([plain]);
});
