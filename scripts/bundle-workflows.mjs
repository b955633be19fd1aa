#!/usr/bin/env node
// Bundles the compiled agent workflow once, at build time, into dist/workflow-bundle.js, so that
// `dar run`, `dar worker` and the CLI's read-only workers start without bundling (seconds of
// CPU each time). Part of `npm run build`; the worker bundles from source when it is missing.
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { workflowInterceptorModules } from '../dist/worker/workflow-interceptor-modules.js';
import { workflowBundlerOptions } from '../dist/worker/workflow-bundler-options.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/**
 * Two bundles: the default one, and one with the tracing interceptors (the runner's turn spans
 * and OpenTelemetry's), which a worker takes when tracing is on. Each workflow evaluates its
 * bundle's modules again, so an untraced worker should not carry OpenTelemetry's.
 */
for (const [file, interceptors] of [
  ['workflow-bundle.js', []],
  ['workflow-bundle-traced.js', workflowInterceptorModules()],
]) {
  const started = Date.now();
  const { code } = await bundleWorkflowCode({
    workflowsPath: join(root, 'dist', 'workflows', 'index.js'),
    workflowInterceptorModules: interceptors,
    ...workflowBundlerOptions(),
    logger: new DefaultLogger('WARN'),
  });
  writeFileSync(join(root, 'dist', file), code);
  console.log(
    `Workflow bundle: dist/${file} (${(code.length / 1e6).toFixed(2)} MB, ${Date.now() - started} ms)`,
  );
}
