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
          // Made in the workflow's own context: its objects are not this realm's plain
          // objects, which the store insists on. A copy through JSON is (and the data is thin).
          const copy = JSON.parse(JSON.stringify(progress)) as typeof progress;
          writer.writeSoon(copy, (error) => {
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
