import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolExecutionContext } from '../../../src/tools/tool-implementation.js';
import type { ToolJournal, ToolJournalEntry } from '../../../src/tools/tool-journal.js';

export interface TemporaryFolders {
  /** The tool's workspace. */
  workspace: string;
  /** A sibling of the workspace: somewhere a tool must never reach. */
  outside: string;
  remove(): Promise<void>;
}

/** A real workspace and a real folder beside it, under a fresh temporary folder. */
export async function createTemporaryFolders(): Promise<TemporaryFolders> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'dar-tools-')));
  const workspace = join(root, 'workspace');
  const outside = join(root, 'outside');
  await mkdir(workspace);
  await mkdir(outside);
  return { workspace, outside, remove: () => rm(root, { recursive: true, force: true }) };
}

export interface TestContext extends ToolExecutionContext {
  heartbeats: number;
}

/** A journal kept in memory, for tests that do not look at where entries are stored. */
export function memoryJournal(): ToolJournal & { entries: Map<string, ToolJournalEntry> } {
  const entries = new Map<string, ToolJournalEntry>();
  return {
    entries,
    async get(key) {
      return entries.get(key);
    },
    async put(key, entry) {
      entries.set(key, structuredClone(entry));
    },
  };
}

export function createToolContext(
  workspace: string,
  signal: AbortSignal = new AbortController().signal,
  journal: ToolJournal = memoryJournal(),
): TestContext {
  const context: TestContext = {
    workspace,
    signal,
    toolCallId: 'call-1',
    idempotencyKey: 'workflow-1/1/call-1',
    journal,
    heartbeats: 0,
    heartbeat: () => {
      context.heartbeats += 1;
    },
  };
  return context;
}

export function textOf(result: { content: { type: string; text?: string }[] }): string {
  return result.content.map((block) => block.text ?? '').join('');
}
