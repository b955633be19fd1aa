import type { HeldObjects } from '../workflows/held-objects.js';

/** A job as Temporal knows it, for a pruner. */
export type JobStanding =
  | { state: 'running' }
  | { state: 'closed'; closedAtMs: number }
  /** Temporal has no such workflow: never started there, or past the namespace's retention. */
  | { state: 'unknown' };

/** A workflow running now. */
export interface RunningWorkflow {
  workflowId: string;
  runId: string;
  /** When the current run started (ms since the epoch). */
  runStartedAtMs: number;
  /**
   * When the first run of its chain started (ms since the epoch), before any continue-as-new;
   * undefined when the server does not say (the pruner then asks the job's status record).
   */
  chainStartedAtMs: number | undefined;
}

/**
 * Where a pruner learns which jobs still run and when the others closed: Temporal, for
 * `dar prune` (`temporalJobDirectory`).
 *
 * Contract: `standing` answers for the moment it is called; `running` lists every workflow of
 * the namespace running when it is called (of any type: a batch or a library caller's
 * workflow may hold object references too), each with its current run.
 */
export interface JobDirectory {
  standing(jobId: string): Promise<JobStanding>;
  running(): Promise<RunningWorkflow[]>;
  /**
   * What the running workflow answers it holds of the store (see `HeldObjects`), asked when
   * this is called; undefined when it does not answer soon (no worker runs it, it is no job,
   * or a job of an earlier release).
   */
  heldObjects(workflow: RunningWorkflow): Promise<HeldObjects | undefined>;
}
