/**
 * R16: `read`, `edit` and `write` on what is not a regular file, or is too large to load. A named
 * pipe with no writer used to hold the call for ever (opening it to read waits for a writer, in
 * one of the worker's few file-system threads, where an abort cannot reach it); now each such
 * call ends at once with an error the model can act on. Real files, a real FIFO (mkfifo).
 */
import { execFileSync } from 'node:child_process';
import { readFile, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { editTool } from '../../../src/tools/edit.js';
import { readTool } from '../../../src/tools/read.js';
import { MAXIMUM_FILE_BYTES } from '../../../src/tools/regular-file.js';
import { writeTool } from '../../../src/tools/write.js';
import {
  createTemporaryFolders,
  createToolContext,
  type TemporaryFolders,
} from './tool-test-context.js';

let folders: TemporaryFolders;

beforeEach(async () => {
  folders = await createTemporaryFolders();
});
afterEach(async () => {
  await folders.remove();
});

/** The call's outcome within `ms`: its error message, 'returned', or 'still running'. */
async function outcomeWithin(call: Promise<unknown>, ms = 2000): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve('still running'), ms);
  });
  try {
    return await Promise.race([
      call.then(
        () => 'returned',
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function makePipe(name: string): string {
  const path = join(folders.workspace, name);
  execFileSync('mkfifo', [path]);
  return path;
}

const NOT_REGULAR = 'pipe is not a regular file (a pipe, device or socket), so it was not read';

describe('a named pipe with no writer', () => {
  it('read ends at once with an error, not a wait for a writer', async () => {
    makePipe('pipe');
    const outcome = await outcomeWithin(
      readTool.execute({ path: 'pipe' }, createToolContext(folders.workspace)),
    );
    expect(outcome).toBe(NOT_REGULAR);
  });

  it('edit ends at once with an error, and the pipe stays a pipe', async () => {
    makePipe('pipe');
    const outcome = await outcomeWithin(
      editTool.execute(
        { path: 'pipe', edits: [{ oldText: 'a', newText: 'b' }] },
        createToolContext(folders.workspace),
      ),
    );
    expect(outcome).toBe(NOT_REGULAR);
    expect(
      execFileSync('stat', ['-c', '%F', join(folders.workspace, 'pipe')], { encoding: 'utf8' }),
    ).toMatch(/fifo/);
  });

  it('write ends at once with an error', async () => {
    makePipe('pipe');
    const outcome = await outcomeWithin(
      writeTool.execute({ path: 'pipe', content: 'x' }, createToolContext(folders.workspace)),
    );
    expect(outcome).toBe(NOT_REGULAR);
  });
});

describe('files too large to load whole', () => {
  it('read refuses a file over the limit and points to bash; one at the limit is read', async () => {
    const big = join(folders.workspace, 'big.log');
    // Sparse: no disk space used, a real size all the same.
    await writeFile(big, '');
    await truncate(big, MAXIMUM_FILE_BYTES + 1);
    const outcome = await outcomeWithin(
      readTool.execute({ path: 'big.log' }, createToolContext(folders.workspace)),
    );
    expect(outcome).toBe(
      `big.log is ${MAXIMUM_FILE_BYTES + 1} bytes, over the limit of ${MAXIMUM_FILE_BYTES} ` +
        'bytes for this tool; look at parts of it with bash (head, tail, sed -n, grep)',
    );

    await truncate(big, MAXIMUM_FILE_BYTES);
    const result = await readTool.execute(
      { path: 'big.log', limit: 1 },
      createToolContext(folders.workspace),
    );
    expect(result.details).toMatchObject({ path: 'big.log', totalLines: 1 });
  }, 30_000);

  it('edit refuses a file over the limit; write still replaces it', async () => {
    const big = join(folders.workspace, 'big.txt');
    await writeFile(big, 'a');
    await truncate(big, MAXIMUM_FILE_BYTES + 1);
    const outcome = await outcomeWithin(
      editTool.execute(
        { path: 'big.txt', edits: [{ oldText: 'a', newText: 'b' }] },
        createToolContext(folders.workspace),
      ),
    );
    expect(outcome).toMatch(/^big\.txt is \d+ bytes, over the limit of \d+ bytes for this tool/);

    await writeTool.execute(
      { path: 'big.txt', content: 'small' },
      createToolContext(folders.workspace),
    );
    expect(await readFile(big, 'utf8')).toBe('small');
  }, 30_000);

  it('write replaces a file past what Node can load whole (2 GiB), reading it only for its hash', async () => {
    const huge = join(folders.workspace, 'huge.bin');
    // Sparse: a real size, no disk space. Loading it whole fails (ERR_FS_FILE_TOO_LARGE).
    await writeFile(huge, '');
    await truncate(huge, 2 ** 31 + 1);
    const result = await writeTool.execute(
      { path: 'huge.bin', content: 'small' },
      createToolContext(folders.workspace),
    );
    expect(result.content).toEqual([{ type: 'text', text: 'Wrote 5 bytes to huge.bin' }]);
    expect(await readFile(huge, 'utf8')).toBe('small');
  }, 120_000);

  it('a device such as /dev/zero is refused, not read without end', async () => {
    const outcome = await outcomeWithin(
      readTool.execute({ path: '/dev/zero' }, createToolContext('/dev')),
    );
    expect(outcome).toBe(
      '/dev/zero is not a regular file (a pipe, device or socket), so it was not read',
    );
  });
});
