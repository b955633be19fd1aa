import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The workflow module the worker bundles: the TypeScript source when running from `src/`
 * (tests), the compiled file when running from `dist/`.
 */
export function agentWorkflowsPath(): string {
  for (const name of ['../workflows/index.ts', '../workflows/index.js']) {
    const path = fileURLToPath(new URL(name, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error('The agent workflow module was not found next to the worker module');
}
