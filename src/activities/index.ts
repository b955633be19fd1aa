import type { JobStore } from '../store/job-store.js';
import { storeToolJournal } from '../tools/store-tool-journal.js';
import type { ToolImplementation } from '../tools/tool-implementation.js';
import type { ToolJournal } from '../tools/tool-journal.js';
import { callModel, type CallModelInput } from './call-model.js';
import { sharedProviderPauses, type ProviderPauses } from './provider-pauses.js';
import { makeExecuteTool, type ExecuteToolInput } from './execute-tool.js';
import { createStoreActivities } from './store-activities.js';
import { createUserToolActivities } from './user-tool-activities.js';

export type { CallModelInput } from './call-model.js';
export type { ExecuteToolInput } from './execute-tool.js';
export type {
  CallModelOnStoredSetupInput,
  CallModelWithStoreInput,
  CallModelWithStoreResult,
  ExecuteToolWithStoreInput,
  ModelCallLeftToPacing,
  RecordProgressInput,
  StoredJobStatus,
} from './store-activities.js';
export { JOB_STATUS_RECORD } from './store-activities.js';
export type { PrepareToolArgumentsInput } from './user-tool-activities.js';

/**
 * The activities a worker registers, with the tool bodies it can run, the journal they share
 * (default: in the job store), the provider pauses the model calls honour (default: the
 * process's, see `ProviderPauses`) and the providers the worker paces (`pacedProviders`; none by
 * default, so jobs call their models on their own task queue after the first call).
 * `callModel` and `executeTool` carry data by value: jobs started before the job store still
 * call them.
 */
export function createActivities(
  tools: Iterable<ToolImplementation>,
  store: JobStore,
  journal: ToolJournal = storeToolJournal(store),
  pauses: ProviderPauses = sharedProviderPauses,
  pacedProviders: ReadonlySet<string> = new Set(),
) {
  const byName = new Map<string, ToolImplementation>();
  for (const tool of tools) byName.set(tool.spec.name, tool);
  const executeTool = makeExecuteTool(byName, journal);
  return {
    callModel: (input: CallModelInput) => callModel(input, pauses),
    executeTool: (input: ExecuteToolInput) => executeTool(input),
    ...createStoreActivities(store, executeTool, pauses, pacedProviders),
    ...createUserToolActivities(byName),
  };
}

export type AgentActivities = ReturnType<typeof createActivities>;
