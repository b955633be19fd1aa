import type { JobRow } from '../client/job-rows.js';

const HEADER = ['JOB', 'STATUS', 'PHASE', 'TURNS', 'BATCH', 'STARTED'] as const;

/**
 * `dar list`'s text: a header, then a line a job, in columns as wide as their longest value
 * (ids of batch jobs are longer than others). A value not known yet is `-`.
 */
export function formatJobTable(rows: readonly JobRow[]): string[] {
  const cells = rows.map((row) => [
    row.id,
    row.workflowStatus,
    row.phase ?? '-',
    row.turns === undefined ? '-' : String(row.turns),
    row.batch ?? '-',
    row.startedAt,
  ]);
  const table = [[...HEADER], ...cells];
  const widths = HEADER.map((_, column) =>
    Math.max(...table.map((line) => (line[column] ?? '').length)),
  );
  return table.map((line) =>
    line
      .map((cell, column) => (column === line.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  '),
  );
}
