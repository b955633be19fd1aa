import { Runtime, type InjectedSinks } from '@temporalio/worker';
import { progressWriterFor } from '../activities/progress-writer.js';
import type { JobStore } from '../store/job-store.js';
import type { ProgressSinks } from '../workflows/progress-sink.js';

/**
 * The worker's side of the workflow's progress sink: hands each write to the store's progress
 * writer and returns at once (the SDK waits for a sink function before it completes the
 * activation). A failed write is logged; the workflow's next durable write repeats it.
 */
export function progressSinks(store: JobStore): InjectedSinks<ProgressSinks> {
  const writer = progressWriterFor(store);
  return {
    jobProgress: {
      write: {
        fn(info, progress) {
          writer.writeSoon(inThisRealm(progress), (error) => {
            Runtime.instance().logger.warn(
              'Job progress not written yet; a later write repeats it',
              {
                workflowId: info.workflowId,
                error: error instanceof Error ? error.message : String(error),
              },
            );
          });
        },
        callDuringReplay: false,
      },
    },
  };
}

/**
 * The progress as this realm's plain objects, which the store insists on. From a workflow
 * thread (the default) the SDK hands it over already copied into this realm; a workflow run in
 * this thread (debug mode) made it in its own context, and a copy through JSON makes it ours
 * (the data is thin).
 */
function inThisRealm<T extends object>(progress: T): T {
  if (Object.getPrototypeOf(progress) === Object.prototype) return progress;
  return JSON.parse(JSON.stringify(progress)) as T;
}
