import * as otel from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  CompositePropagator,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
} from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  NoopSpanProcessor,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { tracingRequested } from './tracing-environment.js';

/** The `service.name` of the runner's spans unless `OTEL_SERVICE_NAME` says otherwise. */
export const DEFAULT_SERVICE_NAME = 'durable-agent-runner';

/**
 * Where a process's spans go. Made once per process (see {@link tracingFromEnvironment}) and
 * given to its clients and workers.
 */
export interface AgentTracing {
  /** False when tracing is off: the worker still installs the workflow's span sink, as a no-op. */
  enabled: boolean;
  tracer: otel.Tracer;
  spanProcessor: SpanProcessor;
  resource: Resource;
  /**
   * Sends the spans still buffered and stops exporting, giving the exporter at most
   * {@link TRACING_SHUTDOWN_LIMIT_MS}. Never rejects: resolves to undefined when every span went
   * out, else to why some may not have (a collector that is down, slow or never finishes its
   * answer must not hold a command at exit, nor turn a job that went well into a failed command).
   */
  shutdown(): Promise<string | undefined>;
}

export interface AgentTracingOptions {
  /** Receives every finished span (an exporter wrapped in a processor). */
  spanProcessor: SpanProcessor;
  serviceName?: string;
}

/** How long a process waits at exit for its last spans to be sent. */
export const TRACING_SHUTDOWN_LIMIT_MS = 5000;

/** `work`'s failure or lateness as a sentence; undefined when it ended well in time. */
async function settleWithin(work: Promise<void>, limitMs: number): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(
      () => resolve(`the exporter did not finish in ${limitMs / 1000} s`),
      limitMs,
    );
  });
  try {
    return await Promise.race([
      work.then(
        () => undefined,
        (error: unknown) => `the exporter failed (${(error as Error).message ?? String(error)})`,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

let globalsInstalled = false;

/**
 * Tracing to the given span processor. Installs, once per process, the async context manager
 * (which carries the active span through an activity's awaits, so nested spans find their
 * parent) and the W3C trace context propagator (which carries a trace in Temporal headers from
 * the client to the workflow and from the workflow to its activities).
 */
export function createAgentTracing(options: AgentTracingOptions): AgentTracing {
  if (!globalsInstalled) {
    otel.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    otel.propagation.setGlobalPropagator(
      new CompositePropagator({
        propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
      }),
    );
    globalsInstalled = true;
  }
  const resource = new Resource({ 'service.name': options.serviceName ?? DEFAULT_SERVICE_NAME });
  const provider = new BasicTracerProvider({ resource, spanProcessors: [options.spanProcessor] });
  return {
    enabled: true,
    tracer: provider.getTracer(DEFAULT_SERVICE_NAME),
    spanProcessor: options.spanProcessor,
    resource,
    shutdown: () => settleWithin(provider.shutdown(), TRACING_SHUTDOWN_LIMIT_MS),
  };
}

/** Tracing off: spans are made by nobody and dropped. */
export function disabledTracing(): AgentTracing {
  return {
    enabled: false,
    tracer: otel.trace.getTracer(DEFAULT_SERVICE_NAME),
    spanProcessor: new NoopSpanProcessor(),
    resource: Resource.empty(),
    shutdown: async () => undefined,
  };
}

let fromEnvironment: AgentTracing | undefined;

/**
 * The process's tracing as the environment asks for it (see `tracingRequested`): on, exported
 * over OTLP/HTTP (the exporter reads the standard `OTEL_EXPORTER_OTLP_*` variables: endpoint,
 * headers, timeout), or off. `OTEL_SERVICE_NAME` names the service. The same object for every
 * call of a process.
 */
export function tracingFromEnvironment(environment: NodeJS.ProcessEnv = process.env): AgentTracing {
  if (fromEnvironment) return fromEnvironment;
  fromEnvironment = tracingRequested(environment)
    ? createAgentTracing({
        spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter()),
        serviceName: environment.OTEL_SERVICE_NAME?.trim() || DEFAULT_SERVICE_NAME,
      })
    : disabledTracing();
  return fromEnvironment;
}
