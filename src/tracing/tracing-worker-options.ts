import {
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  makeWorkflowExporter,
} from '@temporalio/interceptors-opentelemetry';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import type { AgentTracing } from './agent-tracing.js';
import { agentSpansInterceptor } from './agent-spans-interceptor.js';

/**
 * The activity interceptors (OpenTelemetry's, which continue the job's trace from the
 * activity's headers, then the runner's model and tool call spans) and the workflow span sink.
 */
export function tracingWorkerOptions(tracing: AgentTracing) {
  const options = { tracer: tracing.tracer };
  const activityInterceptors: ActivityInterceptorsFactory[] = tracing.enabled
    ? [
        (context) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(context, options),
          outbound: new OpenTelemetryActivityOutboundInterceptor(context),
        }),
        agentSpansInterceptor(tracing.tracer),
      ]
    : [];
  const sinks = { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) };
  return { activityInterceptors, sinks };
}
