import { AGENT_WORKFLOW_TYPE } from '../../client/job-client.js';
import { openConnection } from '../connection.js';
import { parseFlags } from '../parse-flags.js';
import { EXIT_OK } from '../usage-error.js';

export const listUsage = 'dar list [--limit N] [--json] [--state-dir DIR]';

export async function listCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(
    'list',
    argv,
    { limit: { type: 'string' }, json: { type: 'boolean' }, 'state-dir': { type: 'string' } },
    { min: 0, max: 0, names: 'no argument' },
  );
  const limit = Number(values.limit ?? '50');
  const connection = await openConnection(values['state-dir']);
  try {
    let count = 0;
    for await (const execution of connection.client.workflow.list({
      query: `WorkflowType = '${AGENT_WORKFLOW_TYPE}'`,
    })) {
      if (count >= limit) break;
      count += 1;
      const row = {
        id: execution.workflowId,
        status: execution.status.name,
        started: execution.startTime.toISOString(),
        closed: execution.closeTime?.toISOString(),
      };
      console.log(
        values.json ? JSON.stringify(row) : `${row.id}  ${row.status.padEnd(10)}  ${row.started}`,
      );
    }
    if (count === 0 && !values.json) console.log('No jobs.');
    return EXIT_OK;
  } finally {
    await connection.close();
  }
}
