import { createAgentWorker } from '../../worker/agent-worker.js';
import { describeModelPacing } from '../../worker/model-pacing.js';
import { DEFAULT_TASK_QUEUE } from '../../worker/task-queue.js';
import { openConnection } from '../connection.js';
import { modelPacingOfFlags, modelRateOption } from '../model-rate-flag.js';
import { parseFlags } from '../parse-flags.js';
import { loadToolModules, toolModuleList, toolsOfModules } from '../tool-modules.js';
import { EXIT_OK } from '../usage-error.js';

/** Runs jobs until SIGINT or SIGTERM, then shuts down gracefully (running activities finish). */
export async function workerCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(
    'worker',
    argv,
    { 'state-dir': { type: 'string' }, tools: { type: 'string' }, ...modelRateOption },
    { min: 0, max: 0, names: 'no argument' },
  );
  const modelPacing = modelPacingOfFlags(values['model-rate']);
  // `--tools ./a.js,./b.js`: modules whose tools this worker runs besides the built-in ones.
  const toolModules = await loadToolModules(toolModuleList(values.tools, process.cwd()));
  const connection = await openConnection(values['state-dir']);
  try {
    const worker = await createAgentWorker({
      connection: await connection.workerConnection(),
      namespace: connection.namespace,
      store: connection.store,
      modelPacing,
      tools: toolsOfModules(toolModules),
    });
    const stop = () => {
      process.stderr.write('Shutting down: waiting for running tool and model calls...\n');
      worker.shutdown();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    process.stderr.write(
      `Worker running on task queue ${DEFAULT_TASK_QUEUE} (namespace ${connection.namespace}), ` +
        `model calls on ${DEFAULT_TASK_QUEUE}-model-<provider>, pacing: ` +
        `${describeModelPacing(modelPacing)}; Ctrl-C stops it.\n`,
    );
    await worker.run();
    process.stderr.write('Worker stopped.\n');
    return EXIT_OK;
  } finally {
    await connection.close();
  }
}
