import { openConnection } from '../connection.js';
import { createEventPrinter } from '../event-format.js';
import { existingJob, readJob } from '../job-reader.js';
import { parseFlags } from '../parse-flags.js';
import { UsageError, EXIT_OK } from '../usage-error.js';

export const eventsUsage = 'dar events ID [--follow] [--json] [--after SEQ] [--state-dir DIR]';

export async function eventsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    'events',
    argv,
    {
      follow: { type: 'boolean' },
      json: { type: 'boolean' },
      after: { type: 'string' },
      'state-dir': { type: 'string' },
    },
    { min: 1, max: 1, names: 'a job id' },
  );
  const afterSeq = Number(values.after ?? '0');
  if (!Number.isInteger(afterSeq) || afterSeq < 0) {
    throw new UsageError(`--after must be a sequence number, not "${values.after}"`);
  }
  const connection = await openConnection(values['state-dir']);
  try {
    const job = await existingJob(connection, positionals[0] ?? '');
    const print = createEventPrinter(values.json ?? false);
    if (values.follow) {
      await readJob(connection, job, (reader) => reader.follow(print, { afterSeq }));
      return EXIT_OK;
    }
    // Pages are bounded in size too, so a short page is not the last one: read until an empty
    // page, all in one read (on a finished job, each read may need a workflow-only worker).
    const events = await readJob(connection, job, (reader) => reader.allEvents(afterSeq));
    for (const event of events) print(event);
    return EXIT_OK;
  } finally {
    await connection.close();
  }
}
