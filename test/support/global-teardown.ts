import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Runs once after a `jest` run: removes the run's shared workflow bundles. */
export default function globalTeardown(): void {
  const run = process.env.DAR_TEST_RUN;
  if (run) rmSync(join(tmpdir(), `dar-test-bundles-${run}`), { recursive: true, force: true });
}
