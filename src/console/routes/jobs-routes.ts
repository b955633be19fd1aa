import { exactPhaseOf, jobListQuery } from '../../client/job-list-filter.js';
import { UsageError } from '../../cli/usage-error.js';
import { DAR_PHASES } from '../../workflows/search-attributes.js';
import { HttpError, sendJson } from '../http-responses.js';
import { countJobsByPhase, listJobRows } from '../../client/job-rows.js';
import type { Route } from './route.js';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

function limitOf(text: string | null): number {
  if (text === null) return DEFAULT_LIMIT;
  const limit = Number(text);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new HttpError(400, `limit must be a whole number from 1 to ${MAX_LIMIT}`);
  }
  return limit;
}

/** A query parameter, left out when empty (an empty filter box filters nothing). */
function filterOf(url: URL, name: string): string | undefined {
  const value = url.searchParams.get(name);
  return value === null || value === '' ? undefined : value;
}

/**
 * `GET /api/jobs?phase=P&batch=B&limit=N`: the newest jobs of the filter, and how many jobs of
 * the batch (or of all) are in each phase. Answers 400 for a phase or batch id that is not one.
 */
export const listJobsRoute: Route = {
  method: 'GET',
  path: '/api/jobs',
  async handle({ url, response, services }) {
    const phase = filterOf(url, 'phase');
    const batch = filterOf(url, 'batch');
    const limit = limitOf(url.searchParams.get('limit'));
    let query: string;
    let batchQuery: string;
    try {
      query = jobListQuery({ phase, batch });
      batchQuery = jobListQuery({ batch });
    } catch (error) {
      if (error instanceof UsageError) {
        throw new HttpError(400, error.message.replace(/^--(phase|batch)/, '$1'));
      }
      throw error;
    }
    const [jobs, counts] = await Promise.all([
      listJobRows(services.client, services.store, query, limit, exactPhaseOf({ phase })),
      countJobsByPhase(services.client, batchQuery),
    ]);
    sendJson(response, 200, { phases: DAR_PHASES, jobs, counts });
  },
};

export const jobsRoutes: readonly Route[] = [listJobsRoute];
