import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './dar.js';

const TRACE_HOOK = join(REPO_ROOT, 'test', 'e2e', 'support', 'module-trace-register.mjs');

/** The environment that makes a `dar` process list the modules it imports into `file`. */
export function moduleTraceEnvironment(file: string): Record<string, string> {
  rmSync(file, { force: true });
  return { NODE_OPTIONS: `--import=${TRACE_HOOK}`, DAR_TEST_MODULE_TRACE: file };
}

/** The npm packages among the modules a traced process imported (`@scope/name` or `name`). */
export function importedPackages(file: string): Set<string> {
  const packages = new Set<string>();
  for (const url of readFileSync(file, 'utf8').split('\n')) {
    const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (match?.[1]) packages.add(match[1]);
  }
  return packages;
}
