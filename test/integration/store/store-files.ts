import { readdirSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { isTemporaryName } from '../../../src/store/file/file-writes.js';

/** Every file under `folder`, as paths relative to it, sorted. */
export function filesUnder(folder: string): string[] {
  const files: string[] = [];
  const visit = (current: string): void => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) visit(path);
      else files.push(relative(folder, path));
    }
  };
  visit(folder);
  return files.sort();
}

/** The store's temporary files among `files`. */
export function temporaryFiles(files: readonly string[]): string[] {
  return files.filter((path) => isTemporaryName(basename(path)));
}
