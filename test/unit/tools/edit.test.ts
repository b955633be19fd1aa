import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Static } from '@sinclair/typebox';
import { validateArguments } from '../../../src/core/index.js';
import { editTool } from '../../../src/tools/edit.js';
import { editToolSpec } from '../../../src/tools/specs/edit.js';
import {
  createTemporaryFolders,
  createToolContext,
  textOf,
  type TemporaryFolders,
} from './tool-test-context.js';

type EditArguments = Static<typeof editToolSpec.parameters>;

let folders: TemporaryFolders;

beforeEach(async () => {
  folders = await createTemporaryFolders();
});
afterEach(async () => {
  await folders.remove();
});

/** What the preflight does with raw arguments before a body sees them (R7, R8). */
function prepare(rawArguments: unknown) {
  return validateArguments(
    editToolSpec.name,
    editToolSpec.parameters,
    editToolSpec.prepareArguments(rawArguments),
  );
}

async function fileText(name: string): Promise<string> {
  return readFile(join(folders.workspace, name), 'utf8');
}

describe('edit: legacy arguments (R7)', () => {
  it('lifts {path, oldText, newText} into edits, which then validate and apply', async () => {
    await writeFile(join(folders.workspace, 'a.ts'), 'const answer = 41;\n');
    const raw = { path: 'a.ts', oldText: '41', newText: '42' };
    const snapshot = structuredClone(raw);

    const prepared = prepare(raw);

    expect(raw).toEqual(snapshot);
    expect(prepared).toEqual({
      ok: true,
      value: { path: 'a.ts', edits: [{ oldText: '41', newText: '42' }] },
    });
    if (!prepared.ok) return;
    const result = await editTool.execute(
      prepared.value as EditArguments,
      createToolContext(folders.workspace),
    );
    expect(textOf(result)).toBe('Applied 1 edit to a.ts');
    await expect(fileText('a.ts')).resolves.toBe('const answer = 42;\n');
  });

  it('appends a legacy replacement after edits already given', () => {
    const raw = {
      path: 'a.ts',
      edits: [{ oldText: 'a', newText: 'b' }],
      oldText: 'c',
      newText: 'd',
    };
    expect(editToolSpec.prepareArguments(raw)).toEqual({
      path: 'a.ts',
      edits: [
        { oldText: 'a', newText: 'b' },
        { oldText: 'c', newText: 'd' },
      ],
    });
    expect(raw.edits).toHaveLength(1);
  });

  it('leaves other shapes as they are', () => {
    const current = { path: 'a.ts', edits: [{ oldText: 'a', newText: 'b' }] };
    const odd = { path: 'a.ts', edits: 'not a list', oldText: 'a', newText: 'b' };
    expect(editToolSpec.prepareArguments(current)).toBe(current);
    expect(editToolSpec.prepareArguments(odd)).toBe(odd);
    expect(editToolSpec.prepareArguments('text')).toBe('text');
    expect(editToolSpec.prepareArguments(null)).toBe(null);
    expect(editToolSpec.prepareArguments([1])).toEqual([1]);
  });

  it('R8: a half legacy call fails validation naming the missing field', () => {
    const prepared = prepare({ path: 'a.ts', oldText: 'x' });
    expect(prepared.ok).toBe(false);
    if (prepared.ok) return;
    expect(prepared.failures).toEqual(['edits.0.newText: must have required properties newText']);
  });
});

describe('edit', () => {
  it('applies edits in order, each to the text the previous one left', async () => {
    await writeFile(join(folders.workspace, 'a.txt'), 'one two three\n');
    await editTool.execute(
      {
        path: 'a.txt',
        edits: [
          { oldText: 'one', newText: 'uno' },
          { oldText: 'uno two', newText: 'uno dos' },
        ],
      },
      createToolContext(folders.workspace),
    );
    await expect(fileText('a.txt')).resolves.toBe('uno dos three\n');
  });

  it('keeps replacement patterns such as $& literal', async () => {
    await writeFile(join(folders.workspace, 'a.txt'), 'price: X\n');
    await editTool.execute(
      { path: 'a.txt', edits: [{ oldText: 'X', newText: "$& $' $1" }] },
      createToolContext(folders.workspace),
    );
    await expect(fileText('a.txt')).resolves.toBe("price: $& $' $1\n");
  });

  it('R16: text that is not found is a thrown error, and the file is unchanged', async () => {
    await writeFile(join(folders.workspace, 'a.txt'), 'alpha\n');
    await expect(
      editTool.execute(
        { path: 'a.txt', edits: [{ oldText: 'beta', newText: 'gamma' }] },
        createToolContext(folders.workspace),
      ),
    ).rejects.toThrow('oldText was not found in a.txt');
    await expect(fileText('a.txt')).resolves.toBe('alpha\n');
  });

  it('R16: ambiguous text is a thrown error with the count; earlier edits are not written', async () => {
    await writeFile(join(folders.workspace, 'a.txt'), 'start\nx = 1\nx = 1\n');
    await expect(
      editTool.execute(
        {
          path: 'a.txt',
          edits: [
            { oldText: 'start', newText: 'begin' },
            { oldText: 'x = 1', newText: 'x = 2' },
          ],
        },
        createToolContext(folders.workspace),
      ),
    ).rejects.toThrow('edits[1].oldText is ambiguous: it occurs 2 times in a.txt');
    await expect(fileText('a.txt')).resolves.toBe('start\nx = 1\nx = 1\n');
  });

  it('counts overlapping occurrences as ambiguous', async () => {
    await writeFile(join(folders.workspace, 'a.txt'), 'aaa');
    await expect(
      editTool.execute(
        { path: 'a.txt', edits: [{ oldText: 'aa', newText: 'b' }] },
        createToolContext(folders.workspace),
      ),
    ).rejects.toThrow('it occurs 2 times');
  });

  it('R16: a missing file is a thrown error naming the path', async () => {
    await expect(
      editTool.execute(
        { path: 'missing.txt', edits: [{ oldText: 'a', newText: 'b' }] },
        createToolContext(folders.workspace),
      ),
    ).rejects.toThrow('File not found: missing.txt');
  });
});
