import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { findTemporalBinary } from '../../src/server/temporal-binary.js';

/**
 * Starts a real Temporal dev server for a test file: the project's binary when there is one
 * (`npm run temporal:install`), else the SDK's own download.
 */
export async function startDevServer(extraArgs: string[] = []): Promise<TestWorkflowEnvironment> {
  quietTemporalLogs();
  const binary = findTemporalBinary();
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: binary
        ? { type: 'existing-path', path: binary.path }
        : { type: 'cached-download' },
      log: { format: 'pretty', level: 'error' },
      extraArgs,
    },
  });
}

/** Worker state changes are noise in test output; warnings and errors still show. */
function quietTemporalLogs(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // Already installed by an earlier test file in this worker process.
  }
}
