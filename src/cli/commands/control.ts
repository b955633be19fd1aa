import { openConnection } from '../connection.js';
import { existingJob } from '../job-reader.js';
import { parseFlags } from '../parse-flags.js';
import { EXIT_OK } from '../usage-error.js';

export const cancelUsage = 'dar cancel ID [--state-dir DIR]';
export const steerUsage = 'dar steer ID "<text>" [--state-dir DIR]';
export const followUpUsage = 'dar follow-up ID "<text>" [--state-dir DIR]';

/** `dar cancel ID`: aborts the job (R21); its running tools are stopped. */
export async function cancelCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    'cancel',
    argv,
    { 'state-dir': { type: 'string' } },
    { min: 1, max: 1, names: 'a job id' },
  );
  const connection = await openConnection(values['state-dir']);
  try {
    const job = await existingJob(connection, positionals[0] ?? '');
    await job.cancel();
    console.log(`Cancellation requested for ${job.workflowId}`);
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
    const connection = await openConnection(values['state-dir']);
    try {
      const job = await existingJob(connection, positionals[0] ?? '');
      const text = positionals[1] ?? '';
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
