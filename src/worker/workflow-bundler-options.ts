import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Options for bundling the agent workflow, wherever it is bundled (the build's prebuilt bundle,
 * a worker bundling at start, the tests): the module that bounds the frames recorded for each
 * workflow promise runs once per workflow thread (see `src/workflows/stack-frames.ts`).
 */
export function workflowBundlerOptions(): { preloadModules: string[] } {
  return { preloadModules: [stackFramesModule()] };
}

function stackFramesModule(): string {
  for (const name of ['../workflows/stack-frames.ts', '../workflows/stack-frames.js']) {
    const path = fileURLToPath(new URL(name, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error('The stack frames workflow module was not found next to the worker module');
}
