import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { devServerSearchAttributeArgs } from '../../src/server/dev-server-command.js';
import { findTemporalBinary } from '../../src/server/temporal-binary.js';

/**
 * Starts a real Temporal dev server for a test file: the project's binary when there is one
 * (`npm run temporal:install`), else the SDK's own download. Like the embedded server, it knows
 * the search attributes agent jobs publish (a worker refuses a namespace without them).
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
      extraArgs: [...devServerSearchAttributeArgs(), ...extraArgs],
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
