import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, readdir, utimes, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { editTool } from '../../../src/tools/edit.js';
import {
  createFileToolJournal,
  pruneToolJournal,
  toolJournalFolder,
} from '../../../src/tools/file-tool-journal.js';
import { PAUSE_BEFORE_FILE_CHANGE } from '../../../src/tools/test-pause.js';
import type { ToolJournal, ToolJournalEntry } from '../../../src/tools/tool-journal.js';
import { writeTool } from '../../../src/tools/write.js';
import {
  createTemporaryFolders,
  createToolContext,
  textOf,
  type TemporaryFolders,
} from './tool-test-context.js';

let folders: TemporaryFolders;
let journal: ToolJournal;
let journalFolder: string;

beforeEach(async () => {
  folders = await createTemporaryFolders();
  journalFolder = join(folders.outside, 'tool-journal');
  journal = createFileToolJournal(journalFolder);
});
afterEach(async () => {
  delete process.env[PAUSE_BEFORE_FILE_CHANGE];
  await folders.remove();
});

const file = (name: string) => join(folders.workspace, name);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** An edit that would fail if applied a second time: "a" then occurs twice. */
const doubleTheA = { path: 'one-a.txt', edits: [{ oldText: 'a', newText: 'aa' }] };

function context(key = 'job-1/1/call-1') {
  return { ...createToolContext(folders.workspace, undefined, journal), idempotencyKey: key };
}

async function waitForFile(path: string): Promise<void> {
  for (let tries = 0; tries < 500 && !existsSync(path); tries += 1) {
    await new Promise((done) => setTimeout(done, 10));
  }
  if (!existsSync(path)) throw new Error(`${path} never appeared`);
}

describe('file tool journal', () => {
  it('stores one JSON file per key, named by its sha256, and reads it back', async () => {
    const entry: ToolJournalEntry = {
      key: 'job/3/call',
      path: '/somewhere',
      before: 'absent',
      after: sha256('x'),
      result: { content: [{ type: 'text', text: 'done' }] },
      recordedAt: new Date().toISOString(),
    };
    await journal.put(entry.key, entry);

    await expect(readdir(journalFolder)).resolves.toEqual([`${sha256('job/3/call')}.json`]);
    await expect(journal.get('job/3/call')).resolves.toEqual(entry);
    await expect(journal.get('job/3/other')).resolves.toBeUndefined();
  });

  it('lives in DAR_TOOL_JOURNAL_DIR, else in the state folder', () => {
    expect(toolJournalFolder({ DAR_TOOL_JOURNAL_DIR: '/shared/journal' }, 'state')).toBe(
      '/shared/journal',
    );
    expect(toolJournalFolder({ DAR_STATE_DIR: '/x' }, '/state')).toBe('/state/tool-journal');
    expect(toolJournalFolder({ DAR_STATE_DIR: '/x' })).toBe('/x/tool-journal');
    expect(toolJournalFolder({})).toBe(resolve('.dar', 'tool-journal'));
  });

  it('prunes entries older than the retention only', async () => {
    await journal.put('old', { key: 'old' } as ToolJournalEntry);
    await journal.put('new', { key: 'new' } as ToolJournalEntry);
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 60 * 60 * 1000);
    await utimes(join(journalFolder, `${sha256('old')}.json`), eightDaysAgo, eightDaysAgo);

    await expect(pruneToolJournal(journalFolder)).resolves.toBe(1);
    await expect(readdir(journalFolder)).resolves.toEqual([`${sha256('new')}.json`]);
  });
});

describe('R24: file tools apply a call once, whatever the number of attempts', () => {
  it('edit: a second attempt of an applied call returns the recorded result and changes nothing', async () => {
    await writeFile(file('one-a.txt'), 'a\n');
    const first = await editTool.execute(doubleTheA, context());
    const second = await editTool.execute(doubleTheA, context());

    expect(textOf(second)).toBe('Applied 1 edit to one-a.txt');
    expect(second).toEqual(first);
    await expect(readFile(file('one-a.txt'), 'utf8')).resolves.toBe('aa\n');
  });

  it('edit: the same edit under another key is a new call (and here fails, as it should)', async () => {
    await writeFile(file('one-a.txt'), 'a\n');
    await editTool.execute(doubleTheA, context('job-1/1/call-1'));
    await expect(editTool.execute(doubleTheA, context('job-1/2/call-1'))).rejects.toThrow(
      'oldText is ambiguous: it occurs 2 times',
    );
    await expect(readFile(file('one-a.txt'), 'utf8')).resolves.toBe('aa\n');
  });

  it('an attempt stopped before the rename left the file intact, and the next one applies it once', async () => {
    await writeFile(file('one-a.txt'), 'a\n');
    const marker = join(folders.outside, 'paused');
    process.env[PAUSE_BEFORE_FILE_CHANGE] = marker;
    // The first attempt records its entry, writes its temporary file, and is held forever.
    void editTool.execute(doubleTheA, context());
    await waitForFile(marker);
    delete process.env[PAUSE_BEFORE_FILE_CHANGE];
    await expect(readFile(file('one-a.txt'), 'utf8')).resolves.toBe('a\n');
    await expect(journal.get('job-1/1/call-1')).resolves.toMatchObject({ before: sha256('a\n') });
    const [leftover, ...others] = (await readdir(folders.workspace)).filter((name) =>
      name.startsWith('.'),
    );
    expect(leftover).toMatch(/^\.one-a\.txt\.[0-9a-f]{12}\.tmp$/);
    expect(others).toEqual([]);

    const retried = await editTool.execute(doubleTheA, context());
    expect(textOf(retried)).toBe('Applied 1 edit to one-a.txt');
    await expect(readFile(file('one-a.txt'), 'utf8')).resolves.toBe('aa\n');
    // The stopped attempt's temporary file is gone from the user's folder.
    await expect(readdir(folders.workspace)).resolves.toEqual(['one-a.txt']);
    await editTool.execute(doubleTheA, context());
    await expect(readFile(file('one-a.txt'), 'utf8')).resolves.toBe('aa\n');
  });

  it('removes only a temporary file of the changed file that its journal entry names', async () => {
    await writeFile(file('one-a.txt'), 'a\n');
    await writeFile(file('precious.txt'), 'keep me\n');
    const stray = file('.one-a.txt.0123456789ab.tmp');
    await writeFile(stray, 'an earlier attempt of another call');
    const entry = (key: string, temporary: string): ToolJournalEntry => ({
      key,
      path: file('one-a.txt'),
      before: sha256('a\n'),
      after: sha256('aa\n'),
      result: { content: [{ type: 'text', text: 'Applied 1 edit to one-a.txt' }] },
      recordedAt: new Date().toISOString(),
      temporary,
    });
    await journal.put('job-1/1/call-1', entry('job-1/1/call-1', file('precious.txt')));
    await editTool.execute(doubleTheA, context());
    const elsewhere = join(folders.outside, '.one-a.txt.0123456789ab.tmp');
    await writeFile(elsewhere, 'not beside the file');
    await journal.put('job-1/2/call-1', entry('job-1/2/call-1', elsewhere));
    await editTool.execute(doubleTheA, context('job-1/2/call-1'));

    await expect(readFile(file('precious.txt'), 'utf8')).resolves.toBe('keep me\n');
    await expect(readFile(stray, 'utf8')).resolves.toBe('an earlier attempt of another call');
    await expect(readFile(elsewhere, 'utf8')).resolves.toBe('not beside the file');
    await expect(readFile(file('one-a.txt'), 'utf8')).resolves.toBe('aa\n');
  });

  it('a file changed by someone else since the interrupted attempt is a clear error, not a change', async () => {
    await writeFile(file('one-a.txt'), 'a\n');
    await editTool.execute(doubleTheA, context());
    await writeFile(file('one-a.txt'), 'someone else wrote a\n');

    await expect(editTool.execute(doubleTheA, context())).rejects.toThrow(
      'one-a.txt changed since an interrupted earlier attempt of this call',
    );
    await expect(readFile(file('one-a.txt'), 'utf8')).resolves.toBe('someone else wrote a\n');
  });

  it('write: a second attempt returns the recorded result; a later change by someone else is reported', async () => {
    const args = { path: 'notes/new.txt', content: 'hello\n' };
    const first = await writeTool.execute(args, context());
    await expect(writeTool.execute(args, context())).resolves.toEqual(first);
    await expect(journal.get('job-1/1/call-1')).resolves.toMatchObject({
      before: 'absent',
      after: sha256('hello\n'),
    });

    await writeFile(file('notes/new.txt'), 'edited since\n');
    await expect(writeTool.execute(args, context())).rejects.toThrow(/changed since/);
    await expect(readFile(file('notes/new.txt'), 'utf8')).resolves.toBe('edited since\n');
  });
});
