import { mkdir } from 'node:fs/promises';
import { sep } from 'node:path';
import { errnoCode } from './file-errors.js';

/**
 * The folders a file store made (or found) in this process, so that a write does not ask the
 * file system for its folder every time: a turn writes dozens of files into a few folders.
 * The store never removes a folder; one removed behind its back (a hand clean-up) is made
 * again by the write that finds it gone (`withFolder`, or the caller's retry after
 * `forgetUnder`).
 */
export class KnownFolders {
  private readonly known = new Set<string>();

  async ensure(folder: string): Promise<void> {
    if (this.known.has(folder)) return;
    await mkdir(folder, { recursive: true });
    this.known.add(folder);
  }

  /** Forgets `folder` and every folder under it (they may be gone). */
  forgetUnder(folder: string): void {
    for (const known of this.known) {
      if (known === folder || known.startsWith(`${folder}${sep}`)) this.known.delete(known);
    }
  }

  /**
   * Runs `write` (which creates files in `folder`) once its folder exists; when it fails for a
   * missing folder that was known, makes the folder again and runs it once more.
   */
  async withFolder<T>(folder: string, write: () => Promise<T>): Promise<T> {
    const wasKnown = this.known.has(folder);
    await this.ensure(folder);
    try {
      return await write();
    } catch (error) {
      if (!wasKnown || errnoCode(error) !== 'ENOENT') throw error;
      this.known.delete(folder);
      await this.ensure(folder);
      return write();
    }
  }
}
