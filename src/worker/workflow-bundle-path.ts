import { existsSync, statSync } from 'node:fs';
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

/**
 * The workflow bundle made by `npm run build` (dist/workflow-bundle.js, or with the tracing
 * interceptors dist/workflow-bundle-traced.js), when this code runs from that build and the
 * bundle is not older than the compiled workflow. Saves every worker start the seconds that
 * bundling takes.
 */
export function prebuiltWorkflowBundlePath(traced = false): string | undefined {
  const name = traced ? '../workflow-bundle-traced.js' : '../workflow-bundle.js';
  const bundle = fileURLToPath(new URL(name, import.meta.url));
  const workflows = fileURLToPath(new URL('../workflows/index.js', import.meta.url));
  if (!existsSync(bundle) || !existsSync(workflows)) return undefined;
  return statSync(bundle).mtimeMs >= statSync(workflows).mtimeMs ? bundle : undefined;
}
