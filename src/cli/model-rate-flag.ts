import { ModelPacingError, modelPacingFrom, type ModelPacing } from '../worker/model-pacing.js';
import { UsageError } from './usage-error.js';

/** The `--model-rate` flag of the commands that run a worker (it may be given several times). */
export const modelRateOption = { 'model-rate': { type: 'string', multiple: true } } as const;

/**
 * The worker's model pacing from `DAR_MODEL_RATE` and the `--model-rate` flags over it; a
 * malformed value is a {@link UsageError}, before anything starts.
 */
export function modelPacingOfFlags(flagValues: readonly string[] | undefined): ModelPacing {
  try {
    return modelPacingFrom(process.env, flagValues ?? []);
  } catch (error) {
    if (error instanceof ModelPacingError) throw new UsageError(error.message);
    throw error;
  }
}
