import { getJob } from '../../client/job-client.js';
import { openConnection, type CliConnection } from '../connection.js';
import { runningJob } from '../job-reader.js';
import { noteWhenNoWorker } from '../no-worker-note.js';
import { jobListQuery } from '../../client/job-list-filter.js';
import { checkMessageNotEmpty, EmptyMessageError } from '../../client/message-length.js';
import { parseFlags } from '../parse-flags.js';
import { jobIdArgument } from '../job-id-argument.js';
import { EXIT_OK, UsageError } from '../usage-error.js';

/**
 * Cancels every job of a batch that runs now (found through the `DarBatchId` search attribute).
 * A `dar batch` still running that batch sees its tasks cancelled and starts no more.
 */
async function cancelBatch(
  connection: CliConnection,
  batchId: string,
  query: string,
): Promise<number> {
  const ids: string[] = [];
  for await (const execution of connection.client.workflow.list({ query })) {
    ids.push(execution.workflowId);
  }
  await Promise.all(ids.map((id) => getJob(connection.client, id, connection.store).cancel()));
  for (const id of ids) console.log(`Cancellation requested for ${id}`);
  console.log(`Batch ${batchId}: cancellation requested for ${ids.length} running job(s)`);
  return EXIT_OK;
}

/** `dar cancel ID`: aborts the job (R21); its running tools are stopped. */
export async function cancelCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    'cancel',
    argv,
    { batch: { type: 'string' }, 'state-dir': { type: 'string' } },
    { min: 0, max: 1, names: 'a job id (or --batch ID)' },
  );
  if ((values.batch === undefined) === (positionals.length === 0)) {
    throw new UsageError('dar cancel: give a job id or --batch ID (one of them)');
  }
  const batch = values.batch;
  const batchQuery = batch === undefined ? undefined : jobListQuery({ batch, runningOnly: true });
  const jobId = batch === undefined ? jobIdArgument(positionals) : undefined;
  const connection = await openConnection(
    values['state-dir'],
    jobId === undefined ? {} : { jobId },
  );
  try {
    if (batch !== undefined && batchQuery !== undefined) {
      return await cancelBatch(connection, batch, batchQuery);
    }
    const job = await runningJob(connection, jobId ?? '', 'nothing to cancel');
    await job.cancel();
    console.log(`Cancellation requested for ${job.workflowId}`);
    // The request is kept in the job's history: it takes effect when a worker runs the job.
    const { taskQueue } = await job.handle.describe();
    await noteWhenNoWorker(
      connection,
      taskQueue,
      `job ${job.workflowId} stops when \`dar worker\` carries it on`,
    );
    return EXIT_OK;
  } finally {
    await connection.close();
  }
}

/** `dar steer` and `dar follow-up`: queue a user message for the job (R20). */
export function messageCommand(kind: 'steer' | 'follow-up') {
  return async (argv: string[]): Promise<number> => {
    const { values, positionals } = parseFlags(
      kind,
      argv,
      { 'state-dir': { type: 'string' } },
      { min: 2, max: 2, names: 'a job id and a "<text>"' },
    );
    const jobId = jobIdArgument(positionals);
    const text = positionals[1] ?? '';
    try {
      checkMessageNotEmpty(
        kind === 'steer' ? 'The steering message' : 'The follow-up message',
        text,
      );
    } catch (error) {
      if (error instanceof EmptyMessageError) throw new UsageError(error.message);
      throw error;
    }
    const connection = await openConnection(values['state-dir'], { jobId });
    try {
      const job = await runningJob(connection, jobId, 'it takes no more messages');
      await (kind === 'steer' ? job.steer(text) : job.followUp(text));
      console.log(
        `Queued ${kind === 'steer' ? 'steering' : 'follow-up'} message for ${job.workflowId}`,
      );
      return EXIT_OK;
    } finally {
      await connection.close();
    }
  };
}
