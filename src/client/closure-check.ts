import type { WorkflowHandle } from '@temporalio/client';

/** How often a follower with nothing new to read asks Temporal whether the job closed. */
const CHECK_INTERVAL_MS = 1000;
const DESCRIBE_DEADLINE_MS = 5000;

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
      const description = await this.handle.client.connection.withDeadline(deadline, () =>
        this.handle.describe(),
      );
      // A run that continued as new is not the job's end (a handle pinned to that run).
      const open = ['RUNNING', 'CONTINUED_AS_NEW'].includes(description.status.name);
      this.known = !open;
    } catch {
      // Unknown for now: asked again at the next interval.
    }
    return this.known;
  }
}
