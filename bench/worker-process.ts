// A worker in its own process, so that its memory can be read from outside:
//   node worker-process.js ADDRESS TASK_QUEUE
import { NativeConnection } from '@temporalio/worker';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createAgentWorker } from '../src/worker/agent-worker.js';
import { createActivities } from '../src/activities/index.js';
import { builtinToolList } from '../src/tools/index.js';
import * as bareActivities from './bare-activities.js';
import { benchWorkflowsPath, openBenchStore } from './bench-environment.js';
import { noopTool } from './noop-tool-body.js';

const [address, taskQueue] = process.argv.slice(2);
Runtime.install({ logger: new DefaultLogger('ERROR') });
const connection = await NativeConnection.connect({ address: address ?? '' });
const store = await openBenchStore();
const worker = await createAgentWorker({
  connection,
  taskQueue: taskQueue ?? '',
  workflowsPath: benchWorkflowsPath,
  store,
  workerOptions: {
    activities: { ...createActivities([...builtinToolList, noopTool], store), ...bareActivities },
    // Keep every open job in the worker's cache: what is measured is the cost of holding them.
    maxCachedWorkflows: 2000,
  },
});
process.on('SIGTERM', () => worker.shutdown());
console.log('ready');
await worker.run();
await connection.close();
