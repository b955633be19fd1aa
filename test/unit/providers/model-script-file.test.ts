import { execFileSync } from 'node:child_process';
import { mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  MAXIMUM_MODEL_SCRIPT_BYTES,
  loadModelScript,
} from '../../../src/providers/model-script.js';

/**
 * A job names its model script's path and the worker reads it: what the path names must not
 * block the worker's event loop (a pipe with no writer) or fill its memory (a device, a huge
 * file). Real files, a real FIFO.
 */
const folder = mkdtempSync(join(tmpdir(), 'dar-script-file-'));

test('a named pipe is refused at once, not waited on', () => {
  const pipe = join(folder, 'script.fifo');
  execFileSync('mkfifo', [pipe]);
  expect(() => loadModelScript(pipe)).toThrow(`Model script ${pipe}: not a regular file`);
});

test('a device is refused instead of read without end', () => {
  expect(() => loadModelScript('/dev/zero')).toThrow('Model script /dev/zero: not a regular file');
});

test('a file over the size limit is refused before it is read', () => {
  const huge = join(folder, 'huge.json');
  writeFileSync(huge, '');
  truncateSync(huge, MAXIMUM_MODEL_SCRIPT_BYTES + 1);
  expect(() => loadModelScript(huge)).toThrow(
    `Model script ${huge}: ${MAXIMUM_MODEL_SCRIPT_BYTES + 1} bytes, over the limit`,
  );
});

test('a folder and a missing file say what is wrong', () => {
  expect(() => loadModelScript(folder)).toThrow('not a regular file');
  expect(() => loadModelScript(join(folder, 'missing.json'))).toThrow('cannot be read (ENOENT)');
});
