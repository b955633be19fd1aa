import { storeHoldsNothingOfEndedJob } from '../../client/deleted-job-data.js';
import { firstReleaseJob } from '../../client/first-release-job.js';
import { readStoredStatus } from '../../client/stored-job-reads.js';
import { HttpError, sendJson } from '../http-responses.js';
import { jobSummary } from '../job-summary.js';
import { describedJob } from './described-job.js';
import type { Route } from './route.js';

/**
 * `GET /api/jobs/:id`: the job's workflow status and the status it last stored, or that the
 * store holds nothing of it any more (`dataDeleted`, after `dar prune`).
 */
export const jobSummaryRoute: Route = {
  method: 'GET',
  path: '/api/jobs/:id',
  async handle({ params, response, services }) {
    const id = params.id ?? '';
    const { job, description } = await describedJob(services, id);
    const stored = await readStoredStatus(services.store, id);
    // Asked only of a job that stored nothing: is its data gone (not a first-release job)?
    const dataDeleted =
      stored === undefined &&
      (await storeHoldsNothingOfEndedJob(services.store, description)) &&
      !(await firstReleaseJob(job.handle));
    sendJson(response, 200, jobSummary(description, stored, dataDeleted));
  },
};

/**
 * `POST /api/jobs/:id/cancel`: cancels the job as `dar cancel` does (R21: running tools are
 * stopped, the run ends with `agent_end`). Answers 202 (the job ends shortly after), 409 when
 * the job no longer runs, 404 when there is none.
 */
export const cancelJobRoute: Route = {
  method: 'POST',
  path: '/api/jobs/:id/cancel',
  async handle({ params, response, services }) {
    const id = params.id ?? '';
    const { job, description } = await describedJob(services, id);
    if (description.status.name !== 'RUNNING') {
      throw new HttpError(409, `Job ${id} is not running (${description.status.name})`);
    }
    await job.cancel();
    sendJson(response, 202, { id, cancellationRequested: true });
  },
};

export const jobRoutes: readonly Route[] = [jobSummaryRoute, cancelJobRoute];
