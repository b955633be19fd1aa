// Replays committed histories with a workflow module and prints one JSON line per history.
// Usage: node replay-histories.mjs HISTORIES_FOLDER WORKFLOWS_MODULE [INTERCEPTOR_MODULE,...].
// Runs as its own process, the way an operator checks a new build against histories before
// deploying it. The workflow interceptor modules are bundled as a worker bundles them.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';

const [historiesFolder, workflowsPath, interceptorModules] = process.argv.slice(2);
const workflowModules = interceptorModules ? interceptorModules.split(',') : [];
Runtime.install({ logger: new DefaultLogger('ERROR') });
const histories = readdirSync(historiesFolder)
  .filter((name) => name.endsWith('.json'))
  .sort()
  .map((name) => ({
    workflowId: name.replace(/\.json$/, ''),
    history: JSON.parse(readFileSync(join(historiesFolder, name), 'utf8')),
  }));
for await (const result of Worker.runReplayHistories(
  // The tracing interceptors' span sink, as a worker installs it (here spans are dropped).
  {
    workflowsPath,
    interceptors: { workflowModules },
    sinks: { exporter: { export: { fn() {} } } },
  },
  histories,
)) {
  const error = result.error ? `${result.error.name}: ${result.error.message}` : null;
  console.log(JSON.stringify({ workflowId: result.workflowId, error }));
}
