import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, stat, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { DEFAULT_STATE_DIR } from '../server/connection-settings.js';
import { writeFileAtomically } from './atomic-write.js';
import { errorCode } from './error-code.js';
import type { ToolJournal, ToolJournalEntry } from './tool-journal.js';

/** Entries older than this are of no use: no attempt of a call comes that late. */
export const TOOL_JOURNAL_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Where a worker keeps its tool journal: `DAR_TOOL_JOURNAL_DIR` when set, else `tool-journal`
 * in the state folder (`stateDir`, else `DAR_STATE_DIR`, else `./.dar`), made absolute.
 */
export function toolJournalFolder(env: NodeJS.ProcessEnv = process.env, stateDir?: string): string {
  const explicit = env.DAR_TOOL_JOURNAL_DIR?.trim();
  if (explicit) return resolve(explicit);
  const state = stateDir ?? (env.DAR_STATE_DIR?.trim() || DEFAULT_STATE_DIR);
  return resolve(state, 'tool-journal');
}

function entryFile(folder: string, key: string): string {
  return join(folder, `${createHash('sha256').update(key).digest('hex')}.json`);
}

function isEntry(value: unknown): value is ToolJournalEntry {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Record<string, unknown>;
  return (
    typeof entry.key === 'string' &&
    typeof entry.path === 'string' &&
    typeof entry.before === 'string' &&
    typeof entry.after === 'string' &&
    typeof entry.result === 'object' &&
    entry.result !== null
  );
}

/**
 * A tool journal in a folder: one small JSON file per key, named by the key's sha256, each
 * written atomically. Workers that share workspaces must share the folder too.
 */
export function createFileToolJournal(folder: string): ToolJournal {
  return {
    async get(key) {
      let text: string;
      try {
        text = await readFile(entryFile(folder, key), 'utf8');
      } catch (error) {
        if (errorCode(error) === 'ENOENT') return undefined;
        throw error;
      }
      const value: unknown = JSON.parse(text);
      // A file of another key (a hash collision) is not this key's entry.
      return isEntry(value) && value.key === key ? value : undefined;
    },
    async put(key, entry) {
      await mkdir(folder, { recursive: true });
      await writeFileAtomically(entryFile(folder, key), `${JSON.stringify(entry)}\n`);
    },
  };
}

/**
 * Removes entries (and stray temporary files) last written more than `maxAgeMs` ago. Best
 * effort: a missing folder or a file another worker removed first is not an error.
 */
export async function pruneToolJournal(
  folder: string,
  maxAgeMs = TOOL_JOURNAL_RETENTION_MS,
  now = Date.now(),
): Promise<number> {
  const names = await readdir(folder).catch(() => [] as string[]);
  let removed = 0;
  for (const name of names) {
    if (!name.endsWith('.json') && !name.endsWith('.tmp')) continue;
    const file = join(folder, name);
    const modified = await stat(file).then(
      (status) => status.mtimeMs,
      () => undefined,
    );
    if (modified === undefined || now - modified <= maxAgeMs) continue;
    await unlink(file).then(
      () => (removed += 1),
      () => undefined,
    );
  }
  return removed;
}
