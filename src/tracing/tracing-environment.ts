/**
 * Whether the environment asks for tracing: `OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` set, and neither `OTEL_TRACES_EXPORTER=none` nor
 * `OTEL_SDK_DISABLED=true`. No imports: commands check it before loading the OpenTelemetry SDK.
 */
export function tracingRequested(environment: NodeJS.ProcessEnv = process.env): boolean {
  const endpoint =
    environment.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() ||
    environment.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const off =
    environment.OTEL_TRACES_EXPORTER?.trim() === 'none' ||
    environment.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true';
  return Boolean(endpoint) && !off;
}
