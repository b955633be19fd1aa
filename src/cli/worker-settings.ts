import { checkWorkerEnvironment, WorkerSettingError } from '../worker/worker-environment.js';
import { UsageError } from './usage-error.js';

/**
 * Checks the settings the worker of this process will read from the environment (see
 * `checkWorkerEnvironment`); a malformed one is a {@link UsageError}, before anything starts.
 */
export function checkWorkerSettings(): void {
  try {
    checkWorkerEnvironment(process.env);
  } catch (error) {
    if (error instanceof WorkerSettingError) throw new UsageError(error.message);
    throw error;
  }
}
