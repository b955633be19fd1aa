import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MAXIMUM_TOOL_OUTPUT_BYTES } from '../../../src/core/index.js';
import { readTool } from '../../../src/tools/read.js';
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

function numbered(from: number, to: number): string {
  const lines: string[] = [];
  for (let line = from; line <= to; line += 1)
    lines.push(`${String(line).padStart(6)}\tline ${line}`);
  return lines.join('\n');
}

async function writeLines(name: string, count: number): Promise<void> {
  const lines = Array.from({ length: count }, (_, index) => `line ${index + 1}`);
  await writeFile(join(folders.workspace, name), `${lines.join('\n')}\n`);
}

describe('read', () => {
  it('returns every line numbered like cat -n', async () => {
    await writeLines('notes.txt', 3);
    const result = await readTool.execute(
      { path: 'notes.txt' },
      createToolContext(folders.workspace),
    );
    expect(textOf(result)).toBe(numbered(1, 3));
  });

  it('returns `limit` lines from the 1-based `offset` and says how to read on', async () => {
    await writeLines('notes.txt', 10);
    const result = await readTool.execute(
      { path: 'notes.txt', offset: 4, limit: 3 },
      createToolContext(folders.workspace),
    );
    expect(textOf(result)).toBe(
      `${numbered(4, 6)}\n\n[Showing lines 4-6 of 10. Use offset=7 to read on.]`,
    );
  });

  it('adds no note when the selection reaches the end of the file', async () => {
    await writeLines('notes.txt', 10);
    const result = await readTool.execute(
      { path: 'notes.txt', offset: 8, limit: 50 },
      createToolContext(folders.workspace),
    );
    expect(textOf(result)).toBe(numbered(8, 10));
  });

  it('cuts at 2000 lines by default', async () => {
    await writeLines('long.txt', 2500);
    const text = textOf(
      await readTool.execute({ path: 'long.txt' }, createToolContext(folders.workspace)),
    );
    expect(text.split('\n')[1999]).toBe(`  2000\tline 2000`);
    expect(text).not.toContain('line 2001\n');
    expect(text).toMatch(/\[Showing lines 1-2000 of 2500\. Use offset=2001 to read on\.\]$/);
  });

  it('accepts an absolute path inside the workspace and a nested relative one', async () => {
    await mkdir(join(folders.workspace, 'src'));
    await writeFile(join(folders.workspace, 'src', 'a.ts'), 'export {};\n');
    const context = createToolContext(folders.workspace);
    const absolute = await readTool.execute(
      { path: join(folders.workspace, 'src', 'a.ts') },
      context,
    );
    const relative = await readTool.execute({ path: './src/../src/a.ts' }, context);
    expect(textOf(absolute)).toBe('     1\texport {};');
    expect(textOf(relative)).toBe('     1\texport {};');
  });

  it('says so for an empty file', async () => {
    await writeFile(join(folders.workspace, 'empty.txt'), '');
    const result = await readTool.execute(
      { path: 'empty.txt' },
      createToolContext(folders.workspace),
    );
    expect(textOf(result)).toBe('(empty.txt is empty)');
  });

  it('R16: a missing file is a thrown error naming the path', async () => {
    await expect(
      readTool.execute({ path: 'missing.txt' }, createToolContext(folders.workspace)),
    ).rejects.toThrow('File not found: missing.txt');
  });

  it('R16: an offset past the end is a thrown error', async () => {
    await writeLines('notes.txt', 3);
    await expect(
      readTool.execute({ path: 'notes.txt', offset: 9 }, createToolContext(folders.workspace)),
    ).rejects.toThrow('Offset 9 is past the end of notes.txt, which has 3 lines');
  });

  it('R16: a folder is a thrown error pointing to ls', async () => {
    await mkdir(join(folders.workspace, 'src'));
    await expect(
      readTool.execute({ path: 'src' }, createToolContext(folders.workspace)),
    ).rejects.toThrow('src is a folder, not a file (use ls to list it)');
  });
});

describe('read: output within the tool output limit', () => {
  it('stops at the byte limit on a whole line and says which offset to read on from', async () => {
    const line = 'w'.repeat(2000);
    const lines = Array.from({ length: 2000 }, () => line);
    await writeFile(join(folders.workspace, 'wide.txt'), `${lines.join('\n')}\n`);
    const result = await readTool.execute(
      { path: 'wide.txt' },
      createToolContext(folders.workspace),
    );
    const output = textOf(result);
    expect(Buffer.byteLength(output)).toBeLessThanOrEqual(MAXIMUM_TOOL_OUTPUT_BYTES);
    // 2008 bytes per numbered line and its newline: 25 lines fit with room for the note.
    expect(output).toMatch(
      /\n\n\[Showing lines 1-25 of 2000 \(a result holds at most 51200 bytes\)\. Use offset=26 to read on\.\]$/,
    );
    const next = await readTool.execute(
      { path: 'wide.txt', offset: 26 },
      createToolContext(folders.workspace),
    );
    expect(textOf(next).startsWith(`    26\t${line}`)).toBe(true);
  });

  it('R16: a 100 KB path is an error that quotes only a prefix of it (ENAMETOOLONG)', async () => {
    const path = 'p'.repeat(100_000);
    const error = await readTool.execute({ path }, createToolContext(folders.workspace)).then(
      () => undefined,
      (thrown: unknown) => thrown as Error,
    );
    expect(error?.message).toMatch(
      /^Path too long for the file system \(100000 characters\): p+\.\.\. \(\d+ more characters\)$/,
    );
    expect(error?.message.length).toBeLessThan(1000);
  });

  it('R16: a long missing path and a long offset error quote only a prefix', async () => {
    const deep = `${'d/'.repeat(2000)}missing.txt`;
    const error = await readTool.execute({ path: deep }, createToolContext(folders.workspace)).then(
      () => undefined,
      (thrown: unknown) => thrown as Error,
    );
    expect(error?.message.length).toBeLessThan(1000);
  });
});
