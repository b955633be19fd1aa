/**
 * Runs once before a `jest` run: names the run, so that the test files of this run share their
 * workflow bundles (see workflow-bundle-cache.ts) and no later run takes them.
 */
export default function globalSetup(): void {
  process.env.DAR_TEST_RUN = `${Date.now()}-${process.pid}`;
}
