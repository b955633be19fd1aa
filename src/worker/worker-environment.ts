import { streamSettingsFromEnvironment } from '../live/stream-settings.js';
import { modelIdleTimeoutFrom } from '../providers/model-idle.js';

/** A worker setting from the environment that does not parse; its message names it. */
export class WorkerSettingError extends Error {
  override name = 'WorkerSettingError';
}

/**
 * Checks the worker settings that its activities read from the environment only as they run:
 * `DAR_STREAMING`, `DAR_STREAM_RETENTION` and, for a worker that makes model calls,
 * `DAR_MODEL_IDLE_TIMEOUT`. Throws a {@link WorkerSettingError} naming the first bad one.
 * `createAgentWorker` calls it before it creates anything; `dar run` before it starts its job,
 * which no worker would carry on otherwise.
 */
export function checkWorkerEnvironment(
  environment: NodeJS.ProcessEnv = process.env,
  options: { modelCalls: boolean } = { modelCalls: true },
): void {
  try {
    streamSettingsFromEnvironment(environment);
    if (options.modelCalls) modelIdleTimeoutFrom(environment);
  } catch (error) {
    // Both only throw for a value they cannot read.
    throw new WorkerSettingError((error as Error).message, { cause: error });
  }
}
