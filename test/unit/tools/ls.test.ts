import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
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

  it('a folder over the limit shows its first 1,000 entries in order, found wherever they come, and the count', async () => {
    const names = Array.from({ length: 2500 }, (_, index) => `f${String(index).padStart(4, '0')}`);
    // Created last-first, so that the entries shown are not the first ones read.
    for (const name of [...names].reverse()) await writeFile(join(folders.workspace, name), '');
    await mkdir(join(folders.workspace, 'f0000-dir'));
    await symlink(join(folders.workspace, 'f0000-dir'), join(folders.workspace, 'f0001-link'));

    const result = await lsTool.execute({}, createToolContext(folders.workspace));

    const expected = [...names, 'f0000-dir/', 'f0001-link/'].sort((left, right) =>
      left < right ? -1 : left > right ? 1 : 0,
    );
    expect(textOf(result)).toBe(
      `${expected.slice(0, 1000).join('\n')}\n\n[Showing 1000 of 2502 entries.]`,
    );
    expect(result.details).toEqual({ path: '.', entries: 2502 });
  });

  it('a folder of 200,000 entries is listed in a small heap (the built tool, in a process of its own)', async () => {
    const big = join(folders.workspace, 'big');
    await mkdir(big);
    execFileSync('bash', ['-c', 'seq -f "entry-%06g" 200000 | xargs touch'], { cwd: big });
    const tool = fileURLToPath(new URL('../../../dist/tools/ls.js', import.meta.url));
    const script = [
      `const { lsTool } = await import(${JSON.stringify(tool)});`,
      `const result = await lsTool.execute({ path: 'big' }, { workspace: ${JSON.stringify(folders.workspace)}, signal: new AbortController().signal });`,
      'console.log(JSON.stringify(result.details), result.content[0].text.split("\\n")[0]);',
    ].join('\n');
    // Every entry at once (and a stat promise each) needed about 150 MB here.
    const output = execFileSync(
      process.execPath,
      ['--max-old-space-size=48', '--input-type=module', '-e', script],
      { encoding: 'utf8' },
    );
    expect(output.trim()).toBe('{"path":"big","entries":200000} entry-000001');
  }, 60_000);
});
