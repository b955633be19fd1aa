import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeTool } from '../../../src/tools/write.js';
import {
  createTemporaryFolders,
  createToolContext,
  textOf,
  type TemporaryFolders,
} from './tool-test-context.js';

let folders: TemporaryFolders;

beforeEach(async () => {
  folders = await createTemporaryFolders();
});
afterEach(async () => {
  await folders.remove();
});

describe('write', () => {
  it('creates missing parent folders and reports the bytes written', async () => {
    const result = await writeTool.execute(
      { path: 'deep/er/notes.txt', content: 'héllo\n' },
      createToolContext(folders.workspace),
    );
    expect(textOf(result)).toBe('Wrote 7 bytes to deep/er/notes.txt');
    expect(result.details).toEqual({ path: 'deep/er/notes.txt', bytes: 7 });
    await expect(readFile(join(folders.workspace, 'deep/er/notes.txt'), 'utf8')).resolves.toBe(
      'héllo\n',
    );
  });

  it('refuses a path that ends with a slash, which names a folder, and makes nothing', async () => {
    await expect(
      writeTool.execute({ path: 'notes/', content: 'x' }, createToolContext(folders.workspace)),
    ).rejects.toThrow(
      'Path "notes/" ends with a slash, so it names a folder; write takes the path of a file',
    );
    await expect(readFile(join(folders.workspace, 'notes'))).rejects.toThrow('ENOENT');
  });

  it('replaces an existing file', async () => {
    await writeFile(join(folders.workspace, 'notes.txt'), 'old content that is longer');
    await writeTool.execute(
      { path: 'notes.txt', content: 'new' },
      createToolContext(folders.workspace),
    );
    await expect(readFile(join(folders.workspace, 'notes.txt'), 'utf8')).resolves.toBe('new');
  });

  it('R21: writes nothing once the call is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      writeTool.execute(
        { path: 'notes.txt', content: 'x' },
        createToolContext(folders.workspace, controller.signal),
      ),
    ).rejects.toThrow('Operation aborted');
    await expect(readFile(join(folders.workspace, 'notes.txt'))).rejects.toThrow('ENOENT');
  });
});
