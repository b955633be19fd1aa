import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from '../activities/index.js';
import { makeRecordProgress } from '../activities/store-activities.js';
import type { JobStore } from '../store/job-store.js';
import { createFileToolJournal, pruneToolJournal } from '../tools/file-tool-journal.js';
import type { ToolJournal } from '../tools/tool-journal.js';
import { builtinTools } from '../tools/index.js';
import type { ToolImplementation } from '../tools/tool-implementation.js';
import { progressSinks } from './progress-sink.js';
import { checkSearchAttributes } from './search-attributes-check.js';
import { DEFAULT_TASK_QUEUE } from './task-queue.js';
import { agentWorkflowsPath, prebuiltWorkflowBundlePath } from './workflow-bundle-path.js';

export interface AgentWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  taskQueue?: string;
  /** Tool bodies beyond the built-in ones; each needs a spec in the workflow bundle. */
  tools?: ToolImplementation[];
  /** Another workflow module (one that builds its workflow with extra tool specs). */
  workflowsPath?: string;
  /** Poll for workflow tasks only (to answer queries); no model call or tool runs here. */
  workflowsOnly?: boolean;
  /**
   * The job store the activities read and write (see `openJobStore`). Every worker of a task
   * queue, and every client reading its jobs, must use the same store.
   */
  store?: JobStore;
  /** Extra worker settings (tuning, caching); they win over the defaults here. */
  workerOptions?: Partial<WorkerOptions>;
}

/**
 * The tool journal lives in the job store; `DAR_TOOL_JOURNAL_DIR` puts it in files there instead
 * (entries older than 7 days are pruned at start).
 */
async function fileJournalIfAsked(): Promise<ToolJournal | undefined> {
  const folder = process.env.DAR_TOOL_JOURNAL_DIR?.trim();
  if (!folder) return undefined;
  await pruneToolJournal(folder);
  return createFileToolJournal(folder);
}

/** The build's prebuilt bundle when there is one, else the workflow module to bundle now. */
function workflowCode(workflowsPath: string | undefined): Partial<WorkerOptions> {
  const bundle = workflowsPath ? undefined : prebuiltWorkflowBundlePath();
  if (bundle) return { workflowBundle: { codePath: bundle } };
  return { workflowsPath: workflowsPath ?? agentWorkflowsPath() };
}

/**
 * A worker that runs agent jobs: the workflow, the model activity and the tool bodies. Fails with
 * a `SearchAttributesMissingError` when the namespace lacks the jobs' search attributes.
 */
export async function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  const tools = [...Object.values(builtinTools), ...(options.tools ?? [])];
  const namespace = options.namespace ?? 'default';
  if (!options.store) throw new Error('An agent worker needs a job store (options.store)');
  await checkSearchAttributes(options.connection, namespace);
  // A workflow-only worker still runs the local activity of the workflow tasks it takes: the
  // progress recorder. Model calls and tool bodies are left to the other workers.
  const activities = options.workflowsOnly
    ? { recordProgress: makeRecordProgress(options.store) }
    : createActivities(tools, options.store, await fileJournalIfAsked());
  return Worker.create({
    connection: options.connection,
    namespace,
    taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
    ...workflowCode(options.workflowsPath),
    activities,
    sinks: progressSinks(options.store),
    // Heartbeats carry cancellation to running activities; by default the SDK sends them at
    // most every 80% of the heartbeat timeout, so `dar cancel` could take half a minute.
    maxHeartbeatThrottleInterval: '1 second',
    ...options.workerOptions,
  });
}
