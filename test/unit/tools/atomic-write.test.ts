import { chmod, mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomically } from '../../../src/tools/atomic-write.js';
import { createTemporaryFolders, type TemporaryFolders } from './tool-test-context.js';

let folders: TemporaryFolders;

beforeEach(async () => {
  folders = await createTemporaryFolders();
});
afterEach(async () => {
  await folders.remove();
});

const modeOf = async (path: string) => (await stat(path)).mode & 0o7777;

describe('writeFileAtomically', () => {
  it('replaces the content and keeps the original mode', async () => {
    const script = join(folders.workspace, 'run.sh');
    await writeFile(script, 'echo old\n');
    await chmod(script, 0o750);

    await writeFileAtomically(script, 'echo new\n');

    await expect(readFile(script, 'utf8')).resolves.toBe('echo new\n');
    await expect(modeOf(script)).resolves.toBe(0o750);
  });

  it('gives a new file the mode a plain write would', async () => {
    await writeFile(join(folders.workspace, 'plain.txt'), 'x');
    await writeFileAtomically(join(folders.workspace, 'new.txt'), 'x');
    await expect(modeOf(join(folders.workspace, 'new.txt'))).resolves.toBe(
      await modeOf(join(folders.workspace, 'plain.txt')),
    );
  });

  it('leaves no temporary file behind', async () => {
    await writeFileAtomically(join(folders.workspace, 'a.txt'), 'one');
    await writeFileAtomically(join(folders.workspace, 'a.txt'), 'two');
    await expect(readdir(folders.workspace)).resolves.toEqual(['a.txt']);
  });

  it('keeps the original intact and removes its temporary file when the write fails before the rename', async () => {
    const file = join(folders.workspace, 'a.txt');
    await writeFile(file, 'original');
    let temporaryFiles: string[] = [];
    const failing = writeFileAtomically(file, 'replacement', {
      async beforeRename() {
        temporaryFiles = (await readdir(folders.workspace)).filter((name) => name !== 'a.txt');
        throw new Error('disk gone');
      },
    });

    await expect(failing).rejects.toThrow('disk gone');
    // The new content was in a hidden sibling, never in the target.
    expect(temporaryFiles).toHaveLength(1);
    expect(temporaryFiles[0]).toMatch(/^\.a\.txt\.[0-9a-f]+\.tmp$/);
    await expect(readFile(file, 'utf8')).resolves.toBe('original');
    await expect(readdir(folders.workspace)).resolves.toEqual(['a.txt']);
  });

  it('removes its temporary file when the rename itself fails', async () => {
    const folder = join(folders.workspace, 'taken');
    await mkdir(folder);
    await writeFile(join(folder, 'inside.txt'), 'kept');

    await expect(writeFileAtomically(folder, 'x')).rejects.toThrow();

    await expect(readdir(folders.workspace)).resolves.toEqual(['taken']);
    await expect(readFile(join(folder, 'inside.txt'), 'utf8')).resolves.toBe('kept');
  });
});
