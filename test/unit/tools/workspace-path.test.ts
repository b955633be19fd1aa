import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { editTool } from '../../../src/tools/edit.js';
import { lsTool } from '../../../src/tools/ls.js';
import { readTool } from '../../../src/tools/read.js';
import { resolveWorkspacePath } from '../../../src/tools/workspace-path.js';
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
  await writeFile(join(folders.outside, 'secret.txt'), 'secret\n');
});
afterEach(async () => {
  await folders.remove();
});

describe('file tools refuse real locations outside the workspace', () => {
  it('R16: a symlinked folder that points out is refused by read, edit, ls and write', async () => {
    await symlink(folders.outside, join(folders.workspace, 'escape'));
    const context = createToolContext(folders.workspace);
    const refusal = /^Path "escape.*" is outside the workspace \(its real location is /;

    await expect(readTool.execute({ path: 'escape/secret.txt' }, context)).rejects.toThrow(refusal);
    await expect(
      editTool.execute(
        { path: 'escape/secret.txt', edits: [{ oldText: 'secret', newText: 'gone' }] },
        context,
      ),
    ).rejects.toThrow(refusal);
    await expect(lsTool.execute({ path: 'escape' }, context)).rejects.toThrow(refusal);
    await expect(
      writeTool.execute({ path: 'escape/new/planted.txt', content: 'x' }, context),
    ).rejects.toThrow(refusal);
    await expect(readdir(folders.outside)).resolves.toEqual(['secret.txt']);
  });

  it('R16: a symlinked file that points out is refused', async () => {
    await symlink(join(folders.outside, 'secret.txt'), join(folders.workspace, 'link.txt'));
    await expect(
      readTool.execute({ path: 'link.txt' }, createToolContext(folders.workspace)),
    ).rejects.toThrow('Path "link.txt" is outside the workspace');
  });

  it('R16: a dangling symlink that points out is refused, so write cannot create its target', async () => {
    await symlink(join(folders.outside, 'planted.txt'), join(folders.workspace, 'dangling.txt'));
    await expect(
      writeTool.execute(
        { path: 'dangling.txt', content: 'x' },
        createToolContext(folders.workspace),
      ),
    ).rejects.toThrow('Path "dangling.txt" is outside the workspace');
    await expect(readdir(folders.outside)).resolves.toEqual(['secret.txt']);
  });

  it('R16: `..` and absolute paths outside are refused at run time too', async () => {
    const context = createToolContext(folders.workspace);
    await expect(readTool.execute({ path: '../outside/secret.txt' }, context)).rejects.toThrow(
      'is outside the workspace',
    );
    await expect(
      readTool.execute({ path: join(folders.outside, 'secret.txt') }, context),
    ).rejects.toThrow('is outside the workspace');
  });

  it('allows symlinks that stay inside, and names that merely start with two dots', async () => {
    await mkdir(join(folders.workspace, 'real'));
    await writeFile(join(folders.workspace, 'real', 'a.txt'), 'inside\n');
    await symlink(join(folders.workspace, 'real'), join(folders.workspace, 'alias'));
    await writeFile(join(folders.workspace, '..notes'), 'dots\n');
    const context = createToolContext(folders.workspace);

    expect(textOf(await readTool.execute({ path: 'alias/a.txt' }, context))).toBe('     1\tinside');
    expect(textOf(await readTool.execute({ path: '..notes' }, context))).toBe('     1\tdots');
    await expect(resolveWorkspacePath(folders.workspace, 'alias/new/b.txt')).resolves.toBe(
      join(folders.workspace, 'alias/new/b.txt'),
    );
  });

  it('R16: a workspace that does not exist is a thrown error', async () => {
    await expect(resolveWorkspacePath(join(folders.workspace, 'gone'), 'a.txt')).rejects.toThrow(
      'does not exist',
    );
  });
});
