import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { lsTool } from '../../../src/tools/ls.js';
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

describe('ls', () => {
  it('lists the workspace root by default, sorted, folders with a trailing slash', async () => {
    await writeFile(join(folders.workspace, 'b.txt'), '');
    await writeFile(join(folders.workspace, '.hidden'), '');
    await mkdir(join(folders.workspace, 'src'));
    await mkdir(join(folders.workspace, 'assets'));
    await symlink(join(folders.workspace, 'src'), join(folders.workspace, 'source-link'));

    const result = await lsTool.execute({}, createToolContext(folders.workspace));

    expect(textOf(result)).toBe(['.hidden', 'assets/', 'b.txt', 'source-link/', 'src/'].join('\n'));
  });

  it('lists a sub folder', async () => {
    await mkdir(join(folders.workspace, 'src', 'core'), { recursive: true });
    await writeFile(join(folders.workspace, 'src', 'index.ts'), '');
    const result = await lsTool.execute({ path: 'src' }, createToolContext(folders.workspace));
    expect(textOf(result)).toBe('core/\nindex.ts');
  });

  it('says so for an empty folder', async () => {
    await mkdir(join(folders.workspace, 'empty'));
    const result = await lsTool.execute({ path: 'empty' }, createToolContext(folders.workspace));
    expect(textOf(result)).toBe('(empty is empty)');
  });

  it('R16: a file or a missing folder is a thrown error naming the path', async () => {
    await writeFile(join(folders.workspace, 'a.txt'), '');
    const context = createToolContext(folders.workspace);
    await expect(lsTool.execute({ path: 'a.txt' }, context)).rejects.toThrow(
      'a.txt is a file, not a folder',
    );
    await expect(lsTool.execute({ path: 'nowhere' }, context)).rejects.toThrow(
      'Folder not found: nowhere',
    );
  });
});
