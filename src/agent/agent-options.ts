import type { Client } from '@temporalio/client';
import type { QueueMode, ToolExecutionMode } from '../core/index.js';
import type { JobStore } from '../store/job-store.js';
import type { ToolImplementation } from '../tools/tool-implementation.js';
import type { DurableAgentState } from './agent-state.js';

/** Where the agent's jobs go when the program connects itself (see `DurableAgentOptions.connection`). */
export interface AgentJobConnection {
  /** A Temporal client of the namespace the workers poll. */
  client: Client;
  /** The job store the workers write: the agent reads each run's events from it. */
  store: JobStore;
  /** The workers' task queue (default `DAR_TASK_QUEUE`, else `durable-agent-runner`). */
  taskQueue?: string;
  /** Workflow type to start (default `agentJob`); for workflows built with extra tool specs. */
  workflowType?: string;
}

/** The worker the agent runs inside its own process, beside the program. */
export interface InProcessWorkerOptions {
  /** Tool bodies beyond the built-in ones; each needs a spec in the workflow bundle. */
  tools?: ToolImplementation[];
  /** A workflow module that builds the agent workflow with those tools' specs. */
  workflowsPath?: string;
}

/** How a {@link DurableAgent} is made. Everything is optional; a prompt needs `state.model`. */
export interface DurableAgentOptions {
  /** The state to start from, as Pi's `initialState` (`model` as `provider:id` or `{ provider, id }`). */
  initialState?: Partial<
    Pick<DurableAgentState, 'systemPrompt' | 'model' | 'thinkingLevel' | 'tools' | 'messages'>
  >;
  /** The folder the tools work in, as the workers see it (made absolute; default: the current folder). */
  workspace?: string;
  /**
   * How long a job stays open after a run, waiting for the next `prompt()` (default 30 minutes;
   * the job's `keepOpenMs`). A prompt after that starts a new job that goes on from the same
   * conversation, so this only decides how long an idle job is kept.
   */
  keepOpenMs?: number;
  /** Pi's queue modes: queued messages go in one per turn (default) or all at once. */
  steeringMode?: QueueMode;
  followUpMode?: QueueMode;
  /** How a batch of tool calls runs (default `parallel`). */
  toolExecution?: ToolExecutionMode;
  /**
   * The state folder of the embedded server and store (default `DAR_STATE_DIR`, else `./.dar`),
   * used when no `connection` is given. `TEMPORAL_ADDRESS` and `DAR_STORE_URL` select a cluster
   * and a shared store instead, as for `dar`.
   */
  stateDir?: string;
  /**
   * Jobs go to this client, store and task queue instead of the ones `dar` would use. The
   * runs are then carried by the workers already polling that task queue (`worker` is not used).
   */
  connection?: AgentJobConnection;
  /**
   * Run a worker in this process (default true without `connection`): the program carries its
   * own runs, and another worker (`dar worker`) on the same task queue takes over whatever this
   * process does not finish. False: only other workers carry the runs.
   */
  worker?: boolean | InProcessWorkerOptions;
  /**
   * Prefix of the job ids (default `agent`): each job is `<prefix>-<uuid>`. A job id has at most
   * 255 bytes and no spaces or control characters; a run whose id would not is refused
   * (`JobIdError`).
   */
  jobIdPrefix?: string;
  /**
   * How long an aborted run waits for its job to end (default 30 s). `abort()` cancels the job,
   * and a worker ends its run: running tools stop, then `agent_end`. With no worker there (the
   * runs are left to other workers, and none is running), nothing would end it; past this wait
   * the run ends here as Pi's does, with an `aborted` assistant message and `agent_end`, and the
   * job's cancellation stays recorded for the next worker.
   */
  abortWaitMs?: number;
}

export const DEFAULT_KEEP_OPEN_MS = 30 * 60 * 1000;

export const DEFAULT_ABORT_WAIT_MS = 30_000;
