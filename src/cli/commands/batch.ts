import { accessSync, constants, mkdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { batchIdOf, checkBatchId } from '../../batch/batch-id.js';
import { planBatch, runBatch, type BatchRun, type TaskProgress } from '../../batch/batch-runner.js';
import { liveProgress, plainProgress } from '../../batch/progress-display.js';
import { countTasks } from '../../batch/progress-summary.js';
import { throttledResults } from '../../batch/results-file.js';
import { parseBatchFile, toolModulesOfBatchFile } from '../../batch/task-file.js';
import { batchWorkerOptions } from '../../batch/worker-slots.js';
import { parseBudgetFlags } from '../../job-input/budget-flags.js';
import { budgetMessage } from '../../workflows/job-budget.js';
import { createAgentWorker } from '../../worker/agent-worker.js';
import type { AgentWorker } from '../../worker/agent-worker-group.js';
import { DEFAULT_TASK_QUEUE } from '../../worker/task-queue.js';
import { openConnection } from '../connection.js';
import { buildJobInput } from '../../job-input/build-job-input.js';
import { modelPacingOfFlags, modelRateOption } from '../model-rate-flag.js';
import { parseFlags } from '../parse-flags.js';
import { loadToolModules, toolNamesOfModules, toolsOfModules } from '../tool-modules.js';
import { EXIT_BUDGET, EXIT_CANCELLED, EXIT_FAILED, EXIT_OK, UsageError } from '../usage-error.js';

const DEFAULT_CONCURRENCY = 4;
const MAX_CONCURRENCY = 1000;

function concurrencyOf(value: string | undefined): number {
  const concurrency = Number(value ?? DEFAULT_CONCURRENCY);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENCY) {
    throw new UsageError(`--concurrency must be a whole number from 1 to ${MAX_CONCURRENCY}`);
  }
  return concurrency;
}

function readBatchFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new UsageError(`Cannot read batch file ${path} (${code})`);
  }
}

/** `--model` is checked once, against the current folder, like `dar run --model`. */
function defaultModel(model: string | undefined): string | undefined {
  if (model === undefined) return undefined;
  return buildJobInput({ prompt: '-', model, tools: '' }).model;
}

/** The results file's folder, made now: a bad path is found before the batch, not after it. */
function prepareResultsFolder(path: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    accessSync(dirname(path), constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new UsageError(`Cannot write the results file ${path} (${code})`);
  }
}

/** `tasks.jsonl` -> `tasks.results.jsonl`. */
function defaultResultsPath(file: string): string {
  return `${file.replace(/\.jsonl$/, '')}.results.jsonl`;
}

/**
 * 1 when a task failed for its own reasons (its job budget included); else 3 when the batch's
 * budget stopped the batch; else 130 when a task was cancelled or the batch interrupted; else 0.
 */
export function batchExitCode(tasks: readonly TaskProgress[], run: BatchRun): number {
  const failedAlone = tasks.some(
    ({ state, outcome }) => state === 'failed' && outcome?.budgetExceeded?.scope !== 'batch',
  );
  if (failedAlone) return EXIT_FAILED;
  if (run.stopped === 'budget') return EXIT_BUDGET;
  const counts = countTasks(tasks);
  if (counts.failed > 0) return EXIT_FAILED;
  if (counts.cancelled > 0 || run.stopped) return EXIT_CANCELLED;
  return EXIT_OK;
}

/**
 * `dar batch FILE.jsonl`: every line a task, every task an agent job, at most N at once, with a
 * worker in this process. Every line is checked before anything starts. Running the same command
 * again (after Ctrl-C, a kill, a crash) continues the batch: each task's workflow id comes from
 * the batch id and the task id, so finished tasks are not run again and running ones are joined.
 * `--max-...` is a budget for the whole batch; `--retry-failed` runs failed tasks again as new
 * attempts (new workflow ids), keeping the failed attempts in the results file.
 */
export async function batchCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    'batch',
    argv,
    {
      concurrency: { type: 'string' },
      model: { type: 'string' },
      results: { type: 'string' },
      'batch-id': { type: 'string' },
      'state-dir': { type: 'string' },
      'max-turns': { type: 'string' },
      'max-tokens': { type: 'string' },
      'max-cost': { type: 'string' },
      'max-time': { type: 'string' },
      'retry-failed': { type: 'boolean' },
      'no-worker': { type: 'boolean' },
      ...modelRateOption,
    },
    { min: 1, max: 1, names: 'one FILE.jsonl' },
  );
  const concurrency = concurrencyOf(values.concurrency);
  // The whole batch's budget: the same flags as `dar run`'s, summed over all its jobs.
  const budget = parseBudgetFlags({
    maxTurns: values['max-turns'],
    maxTokens: values['max-tokens'],
    maxCost: values['max-cost'],
    maxTime: values['max-time'],
  });
  const modelPacing = modelPacingOfFlags(values['model-rate']);
  const file = resolve(positionals[0] ?? '');
  const contents = readBatchFile(file);
  const batchId = values['batch-id']
    ? checkBatchId(values['batch-id'], '--batch-id')
    : batchIdOf(file, contents);
  // Tool modules named by the lines: their tools are the jobs', and the worker here runs them.
  const toolModules = await loadToolModules(toolModulesOfBatchFile(file, contents));
  const tasks = planBatch(
    batchId,
    parseBatchFile(
      file,
      contents,
      { model: defaultModel(values.model) },
      toolNamesOfModules(toolModules),
    ),
  );
  const resultsPath = resolve(values.results ?? defaultResultsPath(file));
  prepareResultsFolder(resultsPath);

  const connection = await openConnection(values['state-dir']);
  let worker: AgentWorker | undefined;
  let workerRun: Promise<void> | undefined;
  const interrupted = new AbortController();
  const onInterrupt = () => interrupted.abort();
  process.once('SIGINT', onInterrupt);
  process.once('SIGTERM', onInterrupt);
  try {
    const out = process.stdout;
    out.write(
      `Batch ${batchId}: ${tasks.length} tasks from ${file}, ${concurrency} at a time; ` +
        `results in ${resultsPath}\n`,
    );
    const display = out.isTTY
      ? liveProgress(out, tasks, `batch ${batchId}`)
      : plainProgress(out, tasks);
    const results = throttledResults(resultsPath, tasks);
    const run = await runBatch({
      client: connection.client,
      store: connection.store,
      taskQueue: DEFAULT_TASK_QUEUE,
      batchId,
      tasks,
      concurrency,
      signal: interrupted.signal,
      ...(budget ? { budget } : {}),
      retryFailed: values['retry-failed'] === true,
      // The live block shows the running jobs' usage; plain lines only finished tasks'.
      readsLiveUsage: out.isTTY,
      // The worker in this process runs the batch's jobs (and any other job on the task queue);
      // with --no-worker, `dar worker` processes elsewhere run them and this one only watches.
      async prepare(needed) {
        if (!needed || values['no-worker'] === true) return;
        worker = await createAgentWorker({
          connection: await connection.workerConnection(),
          namespace: connection.namespace,
          store: connection.store,
          workerOptions: batchWorkerOptions(concurrency),
          modelPacing,
          tools: toolsOfModules(toolModules),
        });
        workerRun = worker.run();
      },
      onChange(progress) {
        display.change(progress);
        results.schedule();
      },
      onBudgetSpent(exceeded, stopping) {
        display.note(
          `${budgetMessage(exceeded)}: starting no more tasks; asking ${stopping.length} ` +
            'running jobs to stop at their next turn boundary',
        );
      },
    });
    display.end();
    const written = results.flush();
    const counts = countTasks(tasks);
    out.write(`Results: ${written} of ${counts.total} tasks in ${resultsPath}\n`);
    if (run.retried > 0) out.write(`Retried: ${run.retried} failed tasks as new attempts\n`);
    if (run.budgetExceeded) {
      out.write(
        `Stopped (${budgetMessage(run.budgetExceeded)}): ${counts.skipped} tasks not started ` +
          '(skipped); running jobs ended at their next turn boundary.\n',
      );
    } else if (run.stopped) {
      const why = run.stopped === 'cancelled' ? 'a task was cancelled' : 'interrupted';
      out.write(
        `Stopped (${why}): ${counts.queued} tasks not started, ${counts.running} jobs still ` +
          'running (durable). Run the same command again to continue the batch.\n',
      );
    }
    return batchExitCode(tasks, run);
  } finally {
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onInterrupt);
    worker?.shutdown();
    await workerRun;
    await connection.close();
  }
}
