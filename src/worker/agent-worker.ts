import type { DataConverter } from '@temporalio/common';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { dataConverterFromEnvironment } from '../encryption/data-converter.js';
import type { AgentMetrics } from '../metrics/agent-metrics.js';
import { metricsActivityInterceptor } from '../metrics/metrics-interceptor.js';
import { StatusObservingStore } from '../metrics/status-observing-store.js';
import { tracingFromEnvironment, type AgentTracing } from '../tracing/agent-tracing.js';
import { tracingWorkerOptions } from '../tracing/tracing-worker-options.js';
import { createActivities } from '../activities/index.js';
import {
  noProviderPauses,
  sharedProviderPauses,
  type ProviderPauses,
} from '../activities/provider-pauses.js';
import { makeLocalActivities } from '../activities/store-activities.js';
import { noUserToolActivities } from '../activities/user-tool-activities.js';
import { addProviders, type ProviderFactory } from '../providers/registry.js';
import type { JobStore } from '../store/job-store.js';
import { createFileToolJournal, pruneToolJournal } from '../tools/file-tool-journal.js';
import type { ToolJournal } from '../tools/tool-journal.js';
import { builtinTools } from '../tools/index.js';
import { workerToolList, type WorkerTool } from '../tools/user/worker-tools.js';
import { progressSinks } from './progress-sink.js';
import { AgentWorker } from './agent-worker-group.js';
import { modelPacingFrom, pacedProviders, type ModelPacing } from './model-pacing.js';
import { HEARTBEAT_THROTTLE, closeUnstarted, createModelWorkers } from './model-workers.js';
import { checkSearchAttributes } from './search-attributes-check.js';
import { checkWorkerEnvironment } from './worker-environment.js';
import { DEFAULT_TASK_QUEUE } from './task-queue.js';
import { agentWorkflowsPath, prebuiltWorkflowBundlePath } from './workflow-bundle-path.js';
import { workflowInterceptorModules } from './workflow-interceptor-modules.js';
import { workflowBundlerOptions } from './workflow-bundler-options.js';

export interface AgentWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  taskQueue?: string;
  /**
   * Tools beyond the built-in ones: made by `defineTool`, or Pi `AgentTool` objects as Pi
   * defines them. A job names them in its input's `tools`; their workflow half reaches the job
   * through this worker (described at the job's start, recorded in its history), so no workflow
   * bundle is built. Every worker of the task queue must be given the same tools. A name taken
   * twice, or a built-in's, is refused (`ToolRegistrationError`).
   */
  tools?: readonly WorkerTool[];
  /**
   * Model providers beyond the built-in ones, by the name jobs use in `model` (`name:model-id`):
   * each factory makes the `ModelProvider` (see its contract) for a model id. Their calls run on
   * the jobs' task queue (unpaced; `modelPacing` applies to built-in providers). Registered for
   * this process; a built-in provider's name is refused.
   */
  providers?: Readonly<Record<string, ProviderFactory>>;
  /** Another workflow module (one that builds its workflow with extra tool specs). */
  workflowsPath?: string;
  /**
   * A workflow bundle made beforehand from that module (`bundleWorkflowCode`, written to a
   * file), used instead of bundling it again at start: for a process that starts many workers
   * of one module (a test suite). It must include the tracing interceptors when tracing is on,
   * and should be made with `workflowBundlerOptions()` (fewer stack frames recorded per
   * workflow promise: much cheaper workflow tasks).
   */
  workflowBundlePath?: string;
  /** Poll for workflow tasks only (to answer queries); no model call or tool runs here. */
  workflowsOnly?: boolean;
  /**
   * The job store the activities read and write (see `openJobStore`). Every worker of a task
   * queue, and every client reading its jobs, must use the same store.
   */
  store?: JobStore;
  /**
   * Extra worker settings (tuning, caching) of the jobs' task queue's worker; they win over the
   * defaults here. Its `activities` and `maxConcurrentActivityTaskExecutions` also apply to the
   * model task queues' workers (the latter unless `modelPacing` sets a provider's concurrency).
   */
  workerOptions?: Partial<WorkerOptions>;
  /**
   * Rate and concurrency of each provider's model calls (see `ProviderPacing`); default: read
   * from `DAR_MODEL_RATE`, and no limits when it is unset. Providers not named get no limits.
   */
  modelPacing?: ModelPacing;
  /**
   * Whether a provider's `Retry-After` on one model call holds this process's other calls to
   * that provider until it has passed, and from then on paces them at the rate the provider's
   * answers showed (`LearnedRate`) (default true; false only to measure without pacing).
   */
  pauseOnRetryAfter?: boolean;
  /**
   * The pauses and learned rates this worker's model calls keep per provider. Default: the ones
   * every worker of this process shares (`sharedProviderPauses`), which is what they are for: one
   * provider limit, one view of it. Give a worker its own (`createProviderPauses()`) only to
   * measure or test it apart from the others. Ignored when `pauseOnRetryAfter` is false.
   */
  providerPauses?: ProviderPauses;
  /**
   * The data converter of every worker (payload codecs, failure converter); it must match the
   * clients'. Default: the encrypting one when `DAR_ENCRYPTION_KEY` or `DAR_ENCRYPTION_KEY_FILE`
   * is set (see `dataConverterFromEnvironment`), else Temporal's default.
   */
  dataConverter?: DataConverter;
  /**
   * Where this worker counts its jobs, turns, model calls and tool failures (served by
   * `startMetricsServer`); none by default.
   */
  metrics?: AgentMetrics;
  /**
   * Where the jobs' spans go (see `createAgentTracing`). Default: `tracingFromEnvironment()`,
   * exported over OTLP when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, dropped otherwise.
   */
  tracing?: AgentTracing;
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

/**
 * The build's prebuilt bundle when there is one, else the workflow module to bundle now; with
 * the tracing interceptors only when tracing is on. They add nothing to history (trace context
 * travels in headers), so a job replays the same on a worker with or without them.
 */
function workflowCode(workflowsPath: string | undefined, traced: boolean): Partial<WorkerOptions> {
  const bundle = workflowsPath ? undefined : prebuiltWorkflowBundlePath(traced);
  if (bundle) return { workflowBundle: { codePath: bundle } };
  return {
    workflowsPath: workflowsPath ?? agentWorkflowsPath(),
    bundlerOptions: workflowBundlerOptions(),
    ...(traced ? { interceptors: { workflowModules: workflowInterceptorModules() } } : {}),
  };
}

/**
 * A worker that runs agent jobs: the workflow and the tool bodies on the jobs' task queue, the
 * model calls on each provider's model task queue (`<taskQueue>-model-<provider>`), paced as
 * `modelPacing` says. Fails with a `SearchAttributesMissingError` when the namespace lacks the
 * jobs' search attributes, with a `ModelPacingError` when `DAR_MODEL_RATE` is malformed, and
 * with a `WorkerSettingError` for another malformed setting (see `checkWorkerEnvironment`).
 */
export async function createAgentWorker(options: AgentWorkerOptions): Promise<AgentWorker> {
  const tools = workerToolList(Object.values(builtinTools), options.tools ?? []);
  if (options.providers) addProviders(options.providers);
  const namespace = options.namespace ?? 'default';
  const taskQueue = options.taskQueue ?? DEFAULT_TASK_QUEUE;
  if (!options.store) throw new Error('An agent worker needs a job store (options.store)');
  // Read before anything is created: a malformed DAR_MODEL_RATE fails here.
  const pacing = options.workflowsOnly ? {} : (options.modelPacing ?? modelPacingFrom(process.env));
  const dataConverter = options.dataConverter ?? dataConverterFromEnvironment();
  const shared: Partial<WorkerOptions> = dataConverter ? { dataConverter } : {};
  const store = options.metrics
    ? new StatusObservingStore(options.store, options.metrics)
    : options.store;
  const tracing = options.tracing ?? tracingFromEnvironment();
  const traced = tracingWorkerOptions(tracing);
  // Tracing first: the metrics interceptor then runs inside the activity's span.
  shared.interceptors = {
    activity: [
      ...traced.activityInterceptors,
      ...(options.metrics ? [metricsActivityInterceptor(options.metrics)] : []),
    ],
  };
  const code: Partial<WorkerOptions> = options.workflowBundlePath
    ? { workflowBundle: { codePath: options.workflowBundlePath } }
    : workflowCode(options.workflowsPath, tracing.enabled);
  // ... and a malformed DAR_STREAMING, DAR_STREAM_RETENTION or DAR_MODEL_IDLE_TIMEOUT.
  checkWorkerEnvironment(process.env, { modelCalls: !options.workflowsOnly });
  await checkSearchAttributes(options.connection, namespace);
  // A workflow-only worker still runs the local activities of the workflow tasks it takes (the
  // progress recorder, the store of carried messages). Model calls and tool bodies are left to
  // the other workers.
  const pauses =
    options.pauseOnRetryAfter === false
      ? noProviderPauses
      : (options.providerPauses ?? sharedProviderPauses);
  const activities = options.workflowsOnly
    ? { ...makeLocalActivities(store), ...noUserToolActivities() }
    : createActivities(tools, store, await fileJournalIfAsked(), pauses, pacedProviders(pacing));
  const main = await Worker.create({
    connection: options.connection,
    namespace,
    taskQueue,
    activities,
    // Registered for the local activities only: a workflow-only worker must not take a tool or
    // model activity task from the queue (it would fail it as "not registered on this Worker",
    // ending a waiting job's tool call as an error).
    ...(options.workflowsOnly ? { enableNonLocalActivities: false } : {}),
    maxHeartbeatThrottleInterval: HEARTBEAT_THROTTLE,
    ...shared,
    ...code,
    interceptors: { ...shared.interceptors, ...code.interceptors },
    sinks: { ...traced.sinks, ...progressSinks(store) },
    ...options.workerOptions,
  });
  if (options.workflowsOnly) return new AgentWorker(main);
  let modelWorkers;
  try {
    modelWorkers = await createModelWorkers({
      connection: options.connection,
      namespace,
      taskQueue,
      activities: options.workerOptions?.activities ?? activities,
      pacing,
      defaultConcurrency: options.workerOptions?.maxConcurrentActivityTaskExecutions,
      shared,
    });
  } catch (error) {
    await closeUnstarted([main]);
    throw error;
  }
  return new AgentWorker(main, modelWorkers);
}
