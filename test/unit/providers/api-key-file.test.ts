import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  MAXIMUM_KEY_FILE_BYTES,
  configuredApiKeys,
  readApiKey,
} from '../../../src/providers/api-keys.js';
import { REAL_PROVIDERS } from '../../../src/providers/real-providers.js';

/**
 * `<VARIABLE>_FILE` is read on the worker's event loop, on every model call and, to scrub keys
 * from what leaves the worker, every few hundred milliseconds while a job streams: what it names
 * must not block the loop (a pipe) or fill memory (a device). Real files, a real FIFO.
 */
const folder = mkdtempSync(join(tmpdir(), 'dar-key-file-'));
const anthropic = REAL_PROVIDERS.find((spec) => spec.name === 'anthropic')!;

/**
 * A FIFO whose only writer opens it and stays silent for `seconds`, then leaves: a blocking read
 * of it would take that long and find it empty (with no writer at all it would wait for ever).
 */
function silentPipe(name: string, seconds: number): string {
  const pipe = join(folder, name);
  execFileSync('mkfifo', [pipe]);
  spawn('sh', ['-c', `sleep ${seconds} > '${pipe}'`], { stdio: 'ignore' }).unref();
  return pipe;
}

test('a key file that is a named pipe is refused at once, not waited on', () => {
  const pipe = silentPipe('key.fifo', 3);
  const started = Date.now();
  expect(() => readApiKey(anthropic, { ANTHROPIC_API_KEY_FILE: pipe })).toThrow(
    `ANTHROPIC_API_KEY_FILE names ${pipe}, which cannot be read (not a regular file`,
  );
  expect(Date.now() - started).toBeLessThan(1000);
});

test('the scrub list skips such a file at once too (it is read while jobs stream)', () => {
  const pipe = silentPipe('scrub.fifo', 3);
  const started = Date.now();
  expect(configuredApiKeys({ OPENAI_API_KEY_FILE: pipe, ANTHROPIC_API_KEY: 'sk-direct' })).toEqual([
    'sk-direct',
  ]);
  expect(Date.now() - started).toBeLessThan(1000);
});

test('a device or a file over the limit is refused before it is read', () => {
  expect(() => readApiKey(anthropic, { ANTHROPIC_API_KEY_FILE: '/dev/zero' })).toThrow(
    'which cannot be read (not a regular file',
  );
  const huge = join(folder, 'huge.key');
  writeFileSync(huge, '');
  truncateSync(huge, MAXIMUM_KEY_FILE_BYTES + 1);
  expect(() => readApiKey(anthropic, { ANTHROPIC_API_KEY_FILE: huge })).toThrow(
    `which cannot be read (${MAXIMUM_KEY_FILE_BYTES + 1} bytes, over the limit of ${MAXIMUM_KEY_FILE_BYTES})`,
  );
});

test('a regular key file is read, trimmed, on each call (a rotated key is used at once)', () => {
  const file = join(folder, 'ok.key');
  writeFileSync(file, ' sk-first \n');
  expect(readApiKey(anthropic, { ANTHROPIC_API_KEY_FILE: file })).toBe('sk-first');
  writeFileSync(file, 'sk-second\n');
  expect(readApiKey(anthropic, { ANTHROPIC_API_KEY_FILE: file })).toBe('sk-second');
});
