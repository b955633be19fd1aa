import type { ClientInterceptors } from '@temporalio/client';
import { tracingRequested } from './tracing-environment.js';

/**
 * The client interceptors of a traced process: starting a job opens its trace (the
 * `StartWorkflow` span) and hands it to the workflow in its headers. None when tracing is off
 * (the workflow's run span then starts the job's trace). The OpenTelemetry SDK and the
 * interceptors are loaded only when tracing is on: commands start faster without.
 */
export async function tracingClientInterceptors(
  environment: NodeJS.ProcessEnv = process.env,
): Promise<ClientInterceptors> {
  if (!tracingRequested(environment)) return {};
  const tracing = (await import('./agent-tracing.js')).tracingFromEnvironment(environment);
  const { OpenTelemetryWorkflowClientInterceptor } =
    await import('@temporalio/interceptors-opentelemetry');
  return { workflow: [new OpenTelemetryWorkflowClientInterceptor({ tracer: tracing.tracer })] };
}
