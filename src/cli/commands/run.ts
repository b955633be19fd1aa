import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { AgentJob, getJob, startJob } from '../../client/job-client.js';
import { jobEnding } from '../../client/job-ending.js';
import { jobIdProblem, MAXIMUM_JOB_ID_BYTES } from '../../client/job-id.js';
import type { JobStore } from '../../store/job-store.js';
import { createAgentWorker } from '../../worker/agent-worker.js';
import type { JobOutcome } from '../../workflows/job-outcome.js';
import type { AgentJobInput } from '../../workflows/job-types.js';
import { openConnection } from '../connection.js';
import { stdoutClosed } from '../closed-output.js';
import { endingSummary } from '../ending-summary.js';
import { noteWhenNoWorker } from '../no-worker-note.js';
import { createFollowPrinter } from '../follow-printer.js';
import { parseBudgetFlags } from '../../job-input/budget-flags.js';
import { parseCompactionFlags } from '../../job-input/compaction-flags.js';
import { buildJobInput } from '../../job-input/build-job-input.js';
import { parseKeepOpen } from '../../job-input/keep-open-flag.js';
import { modelPacingOfFlags } from '../model-rate-flag.js';
import { checkWorkerSettings } from '../worker-settings.js';
import { parseFlags } from '../parse-flags.js';
import { connectConfiguredMcpServers } from '../mcp-servers.js';
import type { McpServers } from '../../tools/mcp/mcp-tools.js';
import {
  loadToolModules,
  toolModulePaths,
  toolNamesOfModules,
  toolsOfModules,
  type ToolModules,
} from '../tool-modules.js';
import { EXIT_BUDGET, EXIT_CANCELLED, EXIT_FAILED, EXIT_OK, UsageError } from '../usage-error.js';
import { terminalText } from '../../client/terminal-text.js';

/** The exit code for a job's outcome: 0 completed, 1 failed, 3 stopped by its budget, 130 cancelled. */
export function exitCodeFor({ status, budgetExceeded }: JobOutcome): number {
  if (status === 'cancelled') return EXIT_CANCELLED;
  if (budgetExceeded) return EXIT_BUDGET;
  return status === 'failed' ? EXIT_FAILED : EXIT_OK;
}

/**
 * The exit code for a closed job (see {@link exitCodeFor}). A budget stop is said on stderr: the
 * events alone end like a normal run's.
 */
export async function exitCodeOf(job: AgentJob): Promise<number> {
  const ending = await jobEnding(job);
  if (ending.budgetExceeded && ending.error)
    process.stderr.write(`${terminalText(ending.error)}\n`);
  process.stderr.write(`${terminalText(endingSummary(job.workflowId, ending))}\n`);
  return exitCodeFor(ending);
}

async function startOrAttach(
  client: Parameters<typeof startJob>[0],
  store: JobStore,
  input: AgentJobInput,
  workflowId: string | undefined,
): Promise<{ job: AgentJob; attached: boolean }> {
  try {
    return {
      job: await startJob(
        client,
        input,
        // An id names one job: once it has ended, running the command again shows that job's
        // events and outcome again; nothing (and no model call) runs a second time.
        workflowId ? { workflowId, store, workflowIdReusePolicy: 'REJECT_DUPLICATE' } : { store },
      ),
      attached: false,
    };
  } catch (error) {
    // Running the same command again with the same --id attaches to the job instead.
    if (error instanceof WorkflowExecutionAlreadyStartedError && workflowId) {
      return { job: getJob(client, workflowId, store), attached: true };
    }
    throw error;
  }
}

function parseRunFlags(argv: string[]) {
  return parseFlags(
    'run',
    argv,
    {
      model: { type: 'string' },
      workspace: { type: 'string' },
      tools: { type: 'string' },
      'mcp-config': { type: 'string' },
      policy: { type: 'string' },
      'tool-execution': { type: 'string' },
      'system-prompt': { type: 'string' },
      id: { type: 'string' },
      json: { type: 'boolean' },
      live: { type: 'boolean' },
      detach: { type: 'boolean' },
      'state-dir': { type: 'string' },
      'max-turns': { type: 'string' },
      'max-tokens': { type: 'string' },
      'max-cost': { type: 'string' },
      'max-time': { type: 'string' },
      'keep-open': { type: 'string' },
      'context-window': { type: 'string' },
      'no-compaction': { type: 'boolean' },
    },
    { min: 1, max: 1, names: 'one "<prompt>"' },
  );
}

type RunFlags = ReturnType<typeof parseRunFlags>['values'];

export async function runCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseRunFlags(argv);
  const idProblem = values.id === undefined ? undefined : jobIdProblem(values.id);
  if (idProblem !== undefined) {
    throw new UsageError(
      `--id ${idProblem} (a job id is 1 to ${MAXIMUM_JOB_ID_BYTES} bytes of printable characters, without spaces)`,
    );
  }
  // Tool modules in --tools are loaded first: the job names their tools, the worker runs them.
  const toolModules = await loadToolModules(toolModulePaths(values.tools, process.cwd()));
  // MCP servers' tools (`server__tool`) may be named in --tools too; this process runs them.
  const mcpServers = await connectConfiguredMcpServers(values['mcp-config'], 'run');
  try {
    return await runJob(values, positionals, toolModules, mcpServers);
  } finally {
    await mcpServers?.close();
  }
}

async function runJob(
  values: RunFlags,
  positionals: string[],
  toolModules: ToolModules,
  mcpServers: McpServers | undefined,
): Promise<number> {
  // Everything the user gave is checked before anything starts.
  const input = buildJobInput(
    {
      prompt: positionals[0] ?? '',
      model: values.model,
      workspace: values.workspace,
      tools: values.tools,
      policy: values.policy,
      toolExecution: values['tool-execution'],
      systemPrompt: values['system-prompt'],
      budget: parseBudgetFlags({
        maxTurns: values['max-turns'],
        maxTokens: values['max-tokens'],
        maxCost: values['max-cost'],
        maxTime: values['max-time'],
      }),
      keepOpenMs:
        values['keep-open'] === undefined ? undefined : parseKeepOpen(values['keep-open']),
      compaction: parseCompactionFlags({
        contextWindow: values['context-window'],
        noCompaction: values['no-compaction'],
      }),
    },
    process.cwd(),
    toolNamesOfModules(toolModules),
    mcpServers?.tools.map((tool) => tool.spec.name) ?? [],
  );

  // The worker below reads DAR_MODEL_RATE: a malformed value stops here, before the job starts;
  // so does one of its other settings (DAR_MODEL_IDLE_TIMEOUT, DAR_STREAMING ...).
  const modelPacing = modelPacingOfFlags(undefined);
  if (!values.detach) checkWorkerSettings();

  const connection = await openConnection(values['state-dir']);
  try {
    const { job, attached } = await startOrAttach(
      connection.client,
      connection.store,
      input,
      values.id,
    );
    if (values.detach) {
      console.log(job.workflowId);
      const { taskQueue } = await job.handle.describe();
      await noteWhenNoWorker(
        connection,
        taskQueue,
        `\`dar worker\` carries job ${job.workflowId} on`,
      );
      return EXIT_OK;
    }
    process.stderr.write(`${attached ? 'Attached to' : 'Started'} job ${job.workflowId}\n`);
    const worker = await createAgentWorker({
      connection: await connection.workerConnection(),
      namespace: connection.namespace,
      store: connection.store,
      modelPacing,
      tools: [...toolsOfModules(toolModules), ...(mcpServers?.tools ?? [])],
    });
    const workerRun = worker.run();
    const interrupted = new AbortController();
    const onInterrupt = () => {
      process.stderr.write(
        `\nStopped watching. Job ${job.workflowId} is durable: \`dar worker\` carries it on, ` +
          `\`dar events ${job.workflowId} --follow\` shows it, \`dar cancel ${job.workflowId}\` stops it.\n`,
      );
      interrupted.abort();
    };
    process.once('SIGINT', onInterrupt);
    process.once('SIGTERM', onInterrupt);
    // A reader that went away (`dar run ... | head`) stops the watching as Ctrl-C does.
    stdoutClosed.addEventListener('abort', onInterrupt, { once: true });
    if (stdoutClosed.aborted) onInterrupt();
    try {
      // A kept-open job goes on after agent_end (a follow-up starts another run): it is watched
      // until it closes.
      // Tokens and bash output are printed as they arrive (the live stream), between the events.
      const printer = createFollowPrinter({ json: values.json ?? false, out: process.stdout });
      // JSON lines hold the job's events alone unless --live asks for live lines as well.
      const live = values.json && !values.live ? undefined : { onLive: printer.live };
      await job.follow((event) => printer.event(event), {
        signal: interrupted.signal,
        untilClosed: input.keepOpenMs !== undefined,
        ...(live ? { live } : {}),
      });
      return await exitCodeOf(job);
    } catch (error) {
      if (interrupted.signal.aborted) return EXIT_CANCELLED;
      throw error;
    } finally {
      process.off('SIGINT', onInterrupt);
      process.off('SIGTERM', onInterrupt);
      stdoutClosed.removeEventListener('abort', onInterrupt);
      worker.shutdown();
      await workerRun;
    }
  } finally {
    await connection.close();
  }
}
