// A worker in its own process, so that its memory can be read from outside:
//   node worker-process.js ADDRESS TASK_QUEUE STORE_FOLDER
// Its job store is the file store in STORE_FOLDER, which the bench reads the jobs' status from.
import { NativeConnection } from '@temporalio/worker';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createAgentWorker } from '../src/worker/agent-worker.js';
import { createActivities } from '../src/activities/index.js';
import { builtinToolList } from '../src/tools/index.js';
import * as bareActivities from './bare-activities.js';
import { FileJobStore } from '../src/store/file/file-job-store.js';
import { benchWorkflowsPath } from './bench-environment.js';
import { noopTool } from './noop-tool-body.js';

const [address, taskQueue, storeFolder] = process.argv.slice(2);
if (!address || !taskQueue || !storeFolder) {
  throw new Error('usage: node worker-process.js ADDRESS TASK_QUEUE STORE_FOLDER');
}
Runtime.install({ logger: new DefaultLogger('ERROR') });
const connection = await NativeConnection.connect({ address });
const store = await FileJobStore.open({ folder: storeFolder });
const worker = await createAgentWorker({
  connection,
  taskQueue,
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
await store.close();
