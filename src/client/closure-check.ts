import type { WorkflowHandle } from '@temporalio/client';
import proto from '@temporalio/proto';

/** How often a follower with nothing new to read asks Temporal whether the job closed. */
const CHECK_INTERVAL_MS = 1000;
const DESCRIBE_DEADLINE_MS = 5000;

const { WorkflowExecutionStatus } = proto.temporal.api.enums.v1;
/** The latest run's status while the job goes on (it is the latest run that is described). */
const OPEN_STATUSES: ReadonlySet<number> = new Set([
  WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING,
  WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW,
]);

/**
 * Whether a followed job's workflow has closed, asked of Temporal at most once a second. A
 * follower needs it for a job that closed without writing its last events (terminated, timed
 * out, or failed before its first event): the store alone would never say it ended. An error
 * (the server restarting, say) reads as "not closed": the follower keeps reading the store,
 * which does not need the server, and asks again later.
 */
export class ClosureCheck {
  private nextCheckAt = 0;
  private known = false;

  constructor(
    private readonly handle: WorkflowHandle,
    private readonly intervalMs = CHECK_INTERVAL_MS,
  ) {}

  async closed(): Promise<boolean> {
    if (this.known || Date.now() < this.nextCheckAt) return this.known;
    this.nextCheckAt = Date.now() + this.intervalMs;
    try {
      // A deadline of its own: a follow may run inside a caller's short one (`readJob`).
      const deadline = Date.now() + DESCRIBE_DEADLINE_MS;
      // The service call itself, not the handle's `describe`: a poll is not an operation of
      // the job, and the tracing interceptor would export a trace of its own for each one.
      const { client, workflowId } = this.handle;
      const description = await client.connection.withDeadline(deadline, () =>
        client.workflowService.describeWorkflowExecution({
          namespace: client.options.namespace,
          execution: { workflowId },
        }),
      );
      const status = description.workflowExecutionInfo?.status;
      this.known = status !== undefined && status !== null && !OPEN_STATUSES.has(status);
    } catch {
      // Unknown for now: asked again at the next interval.
    }
    return this.known;
  }
}
