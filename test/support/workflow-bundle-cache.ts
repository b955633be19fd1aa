import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { workflowBundlerOptions } from '../../src/worker/workflow-bundler-options.js';

/**
 * Workflow bundles of the test workflow modules, made once per `jest` run and shared by every
 * test file of that run (bundling takes seconds of CPU each time). The folder is named after
 * the run (`DAR_TEST_RUN`, set by test/support/global-setup.ts), so a run never takes a bundle
 * made from older sources; without it, bundles are shared within one test file only.
 */
const made = new Map<string, Promise<string>>();

function bundleFolder(): string {
  const run = process.env.DAR_TEST_RUN ?? `process-${process.pid}`;
  return join(tmpdir(), `dar-test-bundles-${run}`);
}

async function makeBundle(workflowsPath: string): Promise<string> {
  const folder = bundleFolder();
  const name = createHash('sha256').update(workflowsPath).digest('hex').slice(0, 16);
  const path = join(folder, `${name}.js`);
  if (existsSync(path)) return path;
  mkdirSync(folder, { recursive: true });
  const { code } = await bundleWorkflowCode({
    workflowsPath,
    ...workflowBundlerOptions(),
    logger: new DefaultLogger('WARN'),
  });
  // Written whole, then renamed: a reader never sees half a bundle.
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, code);
  renameSync(partial, path);
  return path;
}

/** The path of a bundle of `workflowsPath`, made now or earlier in this run. */
export function cachedWorkflowBundle(workflowsPath: string): Promise<string> {
  let bundle = made.get(workflowsPath);
  if (!bundle) {
    bundle = makeBundle(workflowsPath);
    made.set(workflowsPath, bundle);
  }
  return bundle;
}
