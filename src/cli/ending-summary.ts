import type { JobEnding } from '../client/job-ending.js';

/**
 * The line `dar run` ends with (on stderr, after the job's events): how the job ended, its turns,
 * tokens and cost when it returned a result, why it failed (unless its budget stopped it: that
 * line comes first), and where to look next.
 */
export function endingSummary(jobId: string, ending: JobEnding): string {
  const parts: string[] = [];
  const status = ending.result?.status;
  if (status) {
    const turns = `${status.turns} turn${status.turns === 1 ? '' : 's'}`;
    parts.push(
      `${turns}, ${status.usage.totalTokens} tokens, $${status.usage.cost.total.toFixed(4)}`,
    );
  }
  if (ending.status === 'failed' && ending.error && !ending.budgetExceeded) {
    parts.push(ending.error);
  }
  const details = parts.length > 0 ? `: ${parts.join('; ')}` : '';
  return `Job ${jobId} ${ending.status}${details}. \`dar status ${jobId}\` and \`dar events ${jobId}\` show it again.`;
}
