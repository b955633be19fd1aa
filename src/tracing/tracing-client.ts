import type { ClientInterceptors } from '@temporalio/client';
import { tracingFromEnvironment } from './agent-tracing.js';

/**
 * The client interceptors of a traced process: starting a job opens its trace (the
 * `StartWorkflow` span) and hands it to the workflow in its headers. None when tracing is off
 * (the workflow's run span then starts the job's trace). The interceptors package is loaded
 * only when tracing is on.
 */
export async function tracingClientInterceptors(
  environment: NodeJS.ProcessEnv = process.env,
): Promise<ClientInterceptors> {
  const tracing = tracingFromEnvironment(environment);
  if (!tracing.enabled) return {};
  const { OpenTelemetryWorkflowClientInterceptor } =
    await import('@temporalio/interceptors-opentelemetry');
  return { workflow: [new OpenTelemetryWorkflowClientInterceptor({ tracer: tracing.tracer })] };
}
