import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/**
 * The workflow interceptor modules bundled with the agent workflow, in order: the runner's turn
 * spans, then OpenTelemetry's workflow interceptors (spans for the run and each activity,
 * trace context carried to activities and child runs). Bundled when tracing is on;
 * `scripts/bundle-workflows.mjs` passes the same list to the prebuilt traced bundle.
 */
export function workflowInterceptorModules(): string[] {
  return [
    turnSpansModule(),
    require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'),
  ];
}

function turnSpansModule(): string {
  for (const name of ['../workflows/turn-spans.ts', '../workflows/turn-spans.js']) {
    const path = fileURLToPath(new URL(name, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error('The turn spans workflow module was not found next to the worker module');
}
