import type { AgentJob } from '../client/job-client.js';
import type { ApprovalDecidedEvent } from '../workflows/approval-types.js';

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
  let afterSeq = 0;
  let requested = false;
  for (;;) {
    const page = await job.events(afterSeq);
    if (page.length === 0) break;
    for (const event of page) {
      afterSeq = event.seq;
      if (!('toolCallId' in event) || event.toolCallId !== toolCallId) continue;
      if (event.type === 'approval_requested') requested = true;
      if (event.type === 'approval_decided') {
        const call = `its call ${toolCallId} (${event.toolName})`;
        return `job ${job.workflowId} is no longer running; ${call} was ${howDecided(event)}`;
      }
    }
  }
  if (afterSeq === 0) return undefined;
  const ended = `job ${job.workflowId} is no longer running`;
  return requested
    ? `${ended}; it ended while its call ${toolCallId} waited for approval`
    : `${ended}, and no call ${toolCallId} of it waited for approval`;
}
