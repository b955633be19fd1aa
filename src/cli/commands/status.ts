import { jobEnding } from '../../client/job-ending.js';
import { budgetStopLine, budgetUsageLine } from '../budget-format.js';
import { openConnection } from '../connection.js';
import { describedJob, readJob } from '../job-reader.js';
import { parseFlags } from '../parse-flags.js';
import { jobIdArgument } from '../job-id-argument.js';
import { storeHoldsNothingOfEndedJob } from '../../client/deleted-job-data.js';
import { prunedJobNote } from '../pruned-job.js';
import { EXIT_FAILED, EXIT_OK } from '../usage-error.js';
import { terminalText } from '../../client/terminal-text.js';

export async function statusCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    'status',
    argv,
    { json: { type: 'boolean' }, 'state-dir': { type: 'string' } },
    { min: 1, max: 1, names: 'a job id' },
  );
  const jobId = jobIdArgument(positionals);
  const connection = await openConnection(values['state-dir'], { jobId });
  try {
    const { job, description } = await describedJob(connection, jobId);
    const status = await readJob(connection, job, (reader) => reader.status());
    // An ended job's outcome, decided where `dar run` decides it: completed, failed, cancelled.
    const ending = description.status.name === 'RUNNING' ? undefined : await jobEnding(job);
    if (
      status.phase === 'starting' &&
      (await storeHoldsNothingOfEndedJob(connection.store, description))
    ) {
      const outcome = ending ? { outcome: ending.status } : {};
      if (values.json) {
        console.log(
          JSON.stringify({ workflowStatus: description.status.name, ...outcome, deleted: true }),
        );
      } else {
        console.log(`job:        ${job.workflowId}\nworkflow:   ${description.status.name}`);
        if (ending) console.log(`outcome:    ${ending.status}`);
      }
      process.stderr.write(prunedJobNote(jobId));
      return EXIT_FAILED;
    }
    if (values.json) {
      const outcome = ending ? { outcome: ending.status } : {};
      console.log(
        JSON.stringify({ workflowStatus: description.status.name, ...outcome, ...status }),
      );
      return EXIT_OK;
    }
    const lines = [
      `job:        ${job.workflowId}`,
      `workflow:   ${description.status.name}`,
      ...(ending ? [`outcome:    ${ending.status}`] : []),
      `phase:      ${status.phase}${status.cancelled ? ' (cancelled)' : ''}`,
      `turns:      ${status.turns}`,
      `events:     ${status.lastSeq}`,
      `tokens:     ${status.usage.input} in, ${status.usage.output} out, ${status.usage.totalTokens} total`,
      `cost:       $${status.usage.cost.total.toFixed(4)}`,
    ];
    // Wall time runs from the job's start to its close (or to now, while it runs).
    const end = description.closeTime?.getTime() ?? Date.now();
    const budget = budgetUsageLine(status, end - (status.startedAt ?? end));
    if (budget) lines.push(`budget:     ${budget}`);
    const budgetStop = budgetStopLine(status);
    if (budgetStop) lines.push(`stopped by: ${budgetStop}`);
    if (status.stopReason) lines.push(`stopped:    ${status.stopReason}`);
    if (status.errorMessage) lines.push(`error:      ${status.errorMessage}`);
    if (status.continuedAsNew > 0)
      lines.push(`continued:  ${status.continuedAsNew} time(s) as new`);
    if (status.compactions) lines.push(`compacted:  ${status.compactions} time(s)`);
    if (status.pendingApprovals) {
      lines.push(
        `approvals:  ${status.pendingApprovals} call(s) wait for a decision (dar approvals)`,
      );
    }
    console.log(terminalText(lines.join('\n')));
    return EXIT_OK;
  } finally {
    await connection.close();
  }
}
