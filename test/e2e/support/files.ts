import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './dar.js';

/** A fresh folder under the system's temp folder. */
export function makeTempDir(label: string): string {
  return mkdtempSync(join(tmpdir(), `dar-e2e-${label}-`));
}

export function removeDir(path: string): void {
  rmSync(path, { recursive: true, force: true });
}

/** A copy of examples/workspace at `destination`; returns its path. */
export function copyExampleWorkspace(destination: string): string {
  cpSync(join(REPO_ROOT, 'examples', 'workspace'), destination, { recursive: true });
  return destination;
}

/** One scripted model answer (see src/providers/model-script.ts for the format). */
export interface ScriptAnswer {
  content: Array<
    | { type: 'text'; text: string }
    | { type: 'toolCall'; id: string; name: string; arguments: Record<string, unknown> }
  >;
  stopReason: string;
  delayMs?: number;
}

/** Writes a model script (answer n for model call n) and returns its absolute path. */
export function writeScript(folder: string, name: string, answers: ScriptAnswer[]): string {
  const path = join(folder, name);
  writeFileSync(path, `${JSON.stringify(answers, null, 2)}\n`);
  return path;
}

/** An answer that runs one bash command. */
export function bashTurn(id: string, command: string, delayMs?: number): ScriptAnswer {
  const answer: ScriptAnswer = {
    content: [
      { type: 'text', text: `Running ${id}.` },
      { type: 'toolCall', id, name: 'bash', arguments: { command } },
    ],
    stopReason: 'toolUse',
  };
  if (delayMs !== undefined) answer.delayMs = delayMs;
  return answer;
}

/** A last answer: text, no tool call. */
export function finalTurn(text: string, delayMs?: number): ScriptAnswer {
  const answer: ScriptAnswer = { content: [{ type: 'text', text }], stopReason: 'stop' };
  if (delayMs !== undefined) answer.delayMs = delayMs;
  return answer;
}

/** How many calls a test pause holds (`pauseForTest`: one line per held call in its marker). */
export function heldCalls(marker: string): number {
  try {
    return readFileSync(marker, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '').length;
  } catch {
    return 0;
  }
}
