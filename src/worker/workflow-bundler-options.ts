import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BundleOptions } from '@temporalio/worker';

/**
 * Options for bundling the agent workflow, wherever it is bundled (the build's prebuilt bundle,
 * a worker bundling at start, the tests): the module that bounds the frames recorded for each
 * workflow promise runs once per workflow thread (see `src/workflows/stack-frames.ts`), and the
 * ES modules are concatenated into one scope (see `concatenatedModules`).
 */
export function workflowBundlerOptions(): {
  preloadModules: string[];
  webpackConfigHook: (config: WebpackConfiguration) => WebpackConfiguration;
} {
  return { preloadModules: [stackFramesModule()], webpackConfigHook: concatenatedModules };
}

type WebpackConfiguration = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];

/**
 * Every workflow evaluates the bundle's modules afresh (Temporal's sandbox gives each its own
 * module cache), and Temporal's webpack settings keep each ES module apart: a wrapper, a cache
 * entry and an export getter for each of the several hundred (TypeBox's alone were about a
 * millisecond and a half of every job's start, and of every replay after an eviction). With the
 * modules concatenated and unused exports left out, a workflow's start costs about half the CPU.
 * Behaviour is the same: ES module semantics, same code, same order of evaluation.
 */
function concatenatedModules(config: WebpackConfiguration): WebpackConfiguration {
  return {
    ...config,
    optimization: {
      ...config.optimization,
      providedExports: true,
      usedExports: true,
      sideEffects: true,
      concatenateModules: true,
    },
  };
}

function stackFramesModule(): string {
  for (const name of ['../workflows/stack-frames.ts', '../workflows/stack-frames.js']) {
    const path = fileURLToPath(new URL(name, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error('The stack frames workflow module was not found next to the worker module');
}
