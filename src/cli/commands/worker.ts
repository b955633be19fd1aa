import { createAgentWorker } from '../../worker/agent-worker.js';
import { DEFAULT_TASK_QUEUE } from '../../worker/task-queue.js';
import { openConnection } from '../connection.js';
import { parseFlags } from '../parse-flags.js';
import { EXIT_OK } from '../usage-error.js';

/** Runs jobs until SIGINT or SIGTERM, then shuts down gracefully (running activities finish). */
export async function workerCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(
    'worker',
    argv,
    { 'state-dir': { type: 'string' } },
    { min: 0, max: 0, names: 'no argument' },
  );
  const connection = await openConnection(values['state-dir']);
  try {
    const worker = await createAgentWorker({
      connection: await connection.workerConnection(),
      namespace: connection.namespace,
      store: connection.store,
    });
    const stop = () => {
      process.stderr.write('Shutting down: waiting for running tool and model calls...\n');
      worker.shutdown();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    process.stderr.write(
      `Worker running on task queue ${DEFAULT_TASK_QUEUE} (namespace ${connection.namespace}); Ctrl-C stops it.\n`,
    );
    await worker.run();
    process.stderr.write('Worker stopped.\n');
    return EXIT_OK;
  } finally {
    await connection.close();
  }
}
