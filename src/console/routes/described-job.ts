import { WorkflowNotFoundError, type WorkflowExecutionDescription } from '@temporalio/client';
import { getJob, type AgentJob } from '../../client/job-client.js';
import { HttpError } from '../http-responses.js';
import type { ConsoleServices } from './route.js';

/** The job and Temporal's description of it; a 404 `HttpError` when there is no such job. */
export async function describedJob(
  services: ConsoleServices,
  id: string,
): Promise<{ job: AgentJob; description: WorkflowExecutionDescription }> {
  const job = getJob(services.client, id, services.store);
  try {
    return { job, description: await job.handle.describe() };
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw new HttpError(404, `No job with id ${id}`);
    throw error;
  }
}
