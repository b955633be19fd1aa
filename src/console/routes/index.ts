import { approvalRoutes } from './approval-routes.js';
import { jobEventsRoute } from './job-events-route.js';
import { jobRoutes } from './job-routes.js';
import { jobsRoutes } from './jobs-routes.js';
import type { Route } from './route.js';

/**
 * Every API route of the console, one module per view. A new view (pending approvals, say)
 * adds its module's routes here and its page under `web/`; the server, the access checks and
 * the static files need no change.
 */
export const consoleRoutes: readonly Route[] = [
  ...jobsRoutes,
  ...jobRoutes,
  jobEventsRoute,
  ...approvalRoutes,
];
