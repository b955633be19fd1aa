import { listJobRows } from '../../client/job-rows.js';
import { openConnection } from '../connection.js';
import { exactPhaseOf, jobListQuery } from '../../client/job-list-filter.js';
import { formatJobTable } from '../job-table.js';
import { parseFlags } from '../parse-flags.js';
import { EXIT_OK, UsageError } from '../usage-error.js';
import { terminalText } from '../../client/terminal-text.js';

export async function listCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(
    'list',
    argv,
    {
      batch: { type: 'string' },
      phase: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean' },
      'state-dir': { type: 'string' },
    },
    { min: 0, max: 0, names: 'no argument' },
  );
  const limit = Number(values.limit ?? '50');
  if (!Number.isInteger(limit) || limit < 1) {
    throw new UsageError(`--limit must be a whole number from 1 on, not "${values.limit}"`);
  }
  // Filters go to Temporal's list filter, over the search attributes the jobs publish; each
  // listed job's phase and turns are what it last stored (exact), else what it published.
  const filter = { batch: values.batch, phase: values.phase };
  const query = jobListQuery(filter);
  const connection = await openConnection(values['state-dir']);
  try {
    const rows = await listJobRows(
      connection.client,
      connection.store,
      query,
      limit,
      exactPhaseOf(filter),
    );
    if (values.json) {
      for (const job of rows) {
        const row = {
          id: job.id,
          status: job.workflowStatus,
          started: job.startedAt,
          closed: job.closedAt,
          phase: job.phase,
          turns: job.turns,
          batch: job.batch,
        };
        console.log(JSON.stringify(row));
      }
    } else if (rows.length === 0) console.log('No jobs.');
    else for (const line of formatJobTable(rows)) console.log(terminalText(line));
    return EXIT_OK;
  } finally {
    await connection.close();
  }
}
