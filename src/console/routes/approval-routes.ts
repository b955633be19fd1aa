import { QueryNotRegisteredError, WorkflowNotFoundError } from '@temporalio/client';
import {
  ApprovalRefusedError,
  decideApproval,
  listPendingApprovals,
  type ApprovalRefusal,
} from '../../client/approvals.js';
import { checkBatchId } from '../../batch/batch-id.js';
import { APPROVAL_NOTE_CHARS } from '../../workflows/approval-types.js';
import { pendingApprovalsQuery } from '../../workflows/definitions.js';
import { HttpError, sendJson } from '../http-responses.js';
import { readJsonBody } from '../request-body.js';
import { describedJob } from './described-job.js';
import type { Route } from './route.js';

/** Who decided, as the job records it (the console has no user accounts). */
export const CONSOLE_DECIDER = 'console';

/** The HTTP status of a refused decision: the page shows the message beside it. */
const REFUSAL_STATUS: Record<ApprovalRefusal, number> = {
  unknown: 404,
  decided: 409,
  'not-running': 409,
  invalid: 400,
};

function batchOf(url: URL): string | undefined {
  const batch = url.searchParams.get('batch');
  if (batch === null || batch === '') return undefined;
  try {
    return checkBatchId(batch, 'batch');
  } catch (error) {
    throw new HttpError(400, error instanceof Error ? error.message : String(error));
  }
}

/**
 * `GET /api/approvals?batch=B`: every call waiting for a decision across running jobs (R22),
 * oldest first, as `dar approvals` lists them: `{ now, approvals: [{ jobId, batchId?,
 * toolCallId, toolName, args, reason, requestedAt, deadline?, onTimeout? }] }`.
 */
export const listApprovalsRoute: Route = {
  method: 'GET',
  path: '/api/approvals',
  async handle({ url, response, services }) {
    const batchId = batchOf(url);
    const approvals = await listPendingApprovals(services.client, {
      ...(batchId ? { batchId } : {}),
      read: (handle) =>
        services.askJob(handle.workflowId, () => handle.query(pendingApprovalsQuery)),
    });
    sendJson(response, 200, { now: Date.now(), approvals });
  },
};

/**
 * `GET /api/jobs/:id/approvals`: the job's waiting calls (`{ now, approvals }`, empty once it
 * no longer runs); 404 when there is no such job.
 */
export const jobApprovalsRoute: Route = {
  method: 'GET',
  path: '/api/jobs/:id/approvals',
  async handle({ params, response, services }) {
    const id = params.id ?? '';
    const { job, description } = await describedJob(services, id);
    let pending: unknown[] = [];
    if (description.status.name === 'RUNNING') {
      try {
        pending = await services.askJob(id, () => job.handle.query(pendingApprovalsQuery));
      } catch (error) {
        // Closed since it was described, or a job of a release without approvals.
        const none =
          error instanceof WorkflowNotFoundError || error instanceof QueryNotRegisteredError;
        if (!none) throw error;
      }
    }
    const approvals = pending.map((call) => ({ jobId: id, ...(call as object) }));
    sendJson(response, 200, { now: Date.now(), approvals });
  },
};

function noteOf(body: Record<string, unknown>): string | undefined {
  const note = body.note;
  if (note === undefined || note === null) return undefined;
  if (typeof note !== 'string') throw new HttpError(400, 'note must be text');
  const trimmed = note.trim();
  if (trimmed.length > APPROVAL_NOTE_CHARS) {
    throw new HttpError(400, `note is longer than ${APPROVAL_NOTE_CHARS} characters`);
  }
  return trimmed === '' ? undefined : trimmed;
}

function decisionRoute(decision: 'approve' | 'deny'): Route {
  return {
    method: 'POST',
    path: `/api/jobs/:id/approvals/:callId/${decision}`,
    async handle({ request, params, response, services }) {
      const id = params.id ?? '';
      const toolCallId = params.callId ?? '';
      const note = noteOf(await readJsonBody(request));
      // A 404 naming the job when there is none.
      await describedJob(services, id);
      // One id for every try: a decision asked again is recorded once.
      const updateId = `approval-${toolCallId}-${crypto.randomUUID()}`;
      try {
        const decided = await services.askJob(id, () =>
          decideApproval(
            services.client,
            id,
            { toolCallId, decision, by: CONSOLE_DECIDER, ...(note === undefined ? {} : { note }) },
            { updateId },
          ),
        );
        sendJson(response, 200, decided);
      } catch (error) {
        if (error instanceof ApprovalRefusedError) {
          throw new HttpError(REFUSAL_STATUS[error.refusal], error.message);
        }
        throw error;
      }
    },
  };
}

/**
 * `POST /api/jobs/:id/approvals/:callId/approve` and `.../deny`, with an optional JSON body
 * `{ "note": "..." }`: decides the call through the job's `decideApproval` update, as
 * `dar approve` / `dar deny` do, recorded as decided by `console`. Answers 200 with the
 * decision; 409 when the call was already decided (a second click, another operator) or the job
 * no longer runs; 404 when no such call waits or there is no such job.
 */
export const approvalRoutes: readonly Route[] = [
  listApprovalsRoute,
  jobApprovalsRoute,
  decisionRoute('approve'),
  decisionRoute('deny'),
];
