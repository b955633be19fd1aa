import { darBatchIdKey, darPhaseKey, darTurnsKey } from '../../workflows/search-attributes.js';
import { openConnection } from '../connection.js';
import { jobListQuery } from '../list-filter.js';
import { parseFlags } from '../parse-flags.js';
import { EXIT_OK } from '../usage-error.js';

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
  // Filters go to Temporal's list filter, over the search attributes the jobs publish.
  const query = jobListQuery({ batch: values.batch, phase: values.phase });
  const connection = await openConnection(values['state-dir']);
  try {
    let count = 0;
    for await (const execution of connection.client.workflow.list({ query })) {
      if (count >= limit) break;
      count += 1;
      const row = {
        id: execution.workflowId,
        status: execution.status.name,
        started: execution.startTime.toISOString(),
        closed: execution.closeTime?.toISOString(),
        phase: execution.typedSearchAttributes.get(darPhaseKey),
        turns: execution.typedSearchAttributes.get(darTurnsKey),
        batch: execution.typedSearchAttributes.get(darBatchIdKey),
      };
      console.log(
        values.json
          ? JSON.stringify(row)
          : `${row.id}  ${row.status.padEnd(10)}  ${(row.phase ?? '-').padEnd(7)}  ${row.started}`,
      );
    }
    if (count === 0 && !values.json) console.log('No jobs.');
    return EXIT_OK;
  } finally {
    await connection.close();
  }
}
