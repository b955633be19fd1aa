#!/usr/bin/env node
// Bundles the compiled agent workflow once, at build time, into dist/workflow-bundle.js, so that
// `dar run`, `dar worker` and the CLI's read-only workers start without bundling (seconds of
// CPU each time). Part of `npm run build`; the worker bundles from source when it is missing.
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { workflowInterceptorModules } from '../dist/worker/workflow-interceptor-modules.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const started = Date.now();
const { code } = await bundleWorkflowCode({
  workflowsPath: join(root, 'dist', 'workflows', 'index.js'),
  // The same interceptors as a worker that bundles at start (tracing spans; see the module).
  workflowInterceptorModules: workflowInterceptorModules(),
  logger: new DefaultLogger('WARN'),
});
writeFileSync(join(root, 'dist', 'workflow-bundle.js'), code);
console.log(
  `Workflow bundle: dist/workflow-bundle.js (${(code.length / 1e6).toFixed(2)} MB, ${Date.now() - started} ms)`,
);
