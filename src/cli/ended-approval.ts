import type { AgentJob } from '../client/job-client.js';
import type { ApprovalDecidedEvent } from '../workflows/approval-types.js';
import { passEventPages } from './event-pages.js';

/** How a decided call reads: `denied on timeout at 2026-12-08T01:02:03.000Z`. */
function howDecided(event: ApprovalDecidedEvent): string {
  const when = `at ${new Date(event.at).toISOString()}`;
  if (event.source === 'cancelled') return `stopped waiting when the job was cancelled, ${when}`;
  const verb = event.decision === 'approve' ? 'approved' : 'denied';
  if (event.source === 'timeout') return `${verb} on timeout, ${when}`;
  return `${verb}${event.by ? ` by ${event.by}` : ''}, ${when}`;
}

/**
 * What a decision sent to a job that is no longer running should say instead of "no running
 * job": how the call was decided while the job ran (read from the job's events in the store),
 * or that the job never had it waiting. Undefined when the store holds no event of the job (an
 * unknown id, or a pruned job): the plain refusal stands.
 */
export async function endedJobDecision(
  job: AgentJob,
  toolCallId: string,
): Promise<string | undefined> {
  const cursor = { seq: 0 };
  let requested = false;
  let decided: ApprovalDecidedEvent | undefined;
  await passEventPages(
    (afterSeq) => job.events(afterSeq),
    cursor,
    (event) => {
      if (!('toolCallId' in event) || event.toolCallId !== toolCallId) return;
      if (event.type === 'approval_requested') requested = true;
      if (event.type === 'approval_decided') decided = event;
    },
  );
  if (cursor.seq === 0) return undefined;
  const ended = `job ${job.workflowId} is no longer running`;
  if (decided) {
    return `${ended}; its call ${toolCallId} (${decided.toolName}) was ${howDecided(decided)}`;
  }
  return requested
    ? `${ended}; it ended while its call ${toolCallId} waited for approval`
    : `${ended}, and no call ${toolCallId} of it waited for approval`;
}
