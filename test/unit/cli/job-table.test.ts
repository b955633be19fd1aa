import type { JobRow } from '../../../src/client/job-rows.js';
import { formatJobTable } from '../../../src/cli/job-table.js';

function row(fields: Partial<JobRow>): JobRow {
  return {
    id: 'agent-1',
    workflowStatus: 'COMPLETED',
    phase: 'done',
    turns: 4,
    costUsd: undefined,
    batch: undefined,
    startedAt: '2026-12-05T12:21:46.019Z',
    closedAt: undefined,
    ageMs: 0,
    ...fields,
  };
}

test('dar list prints a header and aligned columns with the turns and batch, - for what is not known', () => {
  const lines = formatJobTable([
    row({}),
    row({
      id: 'batch-3f2a-task-7',
      workflowStatus: 'RUNNING',
      phase: undefined,
      turns: undefined,
      batch: '3f2a',
    }),
  ]);
  expect(lines).toEqual([
    'JOB                STATUS     PHASE  TURNS  BATCH  STARTED',
    'agent-1            COMPLETED  done   4      -      2026-12-05T12:21:46.019Z',
    'batch-3f2a-task-7  RUNNING    -      -      3f2a   2026-12-05T12:21:46.019Z',
  ]);
});
