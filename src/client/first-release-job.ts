import type { WorkflowHandle } from '@temporalio/client';
// The package is CommonJS: its namespace comes as the default export under Node's ESM loader.
import proto from '@temporalio/proto';
import { JOB_STORE_PATCH } from '../workflows/job-store-patch.js';
import { RELEASE_PATCHES } from '../workflows/release-features.js';

const EventType = proto.temporal.api.enums.v1.EventType;

/** Events read from the start of the current run: its first workflow task records the patch. */
const FIRST_EVENTS = 20;

/**
 * Whether a job's current run is the first release's (no job store): it has completed a
 * workflow task and recorded no `dar-job-store` patch marker. Reads a few events of history.
 */
export async function firstReleaseJob(handle: WorkflowHandle): Promise<boolean> {
  const page = await handle.client.workflowService.getWorkflowExecutionHistory({
    namespace: handle.client.options.namespace,
    execution: { workflowId: handle.workflowId },
    maximumPageSize: FIRST_EVENTS,
  });
  const events = page.history?.events ?? [];
  const taskCompleted = events.some(
    (event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
  );
  // Runs of later releases record the job-store patch or a release patch that stands for it.
  const storePatches = [JOB_STORE_PATCH, ...RELEASE_PATCHES].map((patch) => `"${patch}"`);
  const storePatch = events.some((event) => {
    const data = event.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0]?.data;
    if (!data) return false;
    const text = Buffer.from(data).toString('utf8');
    return storePatches.some((patch) => text.includes(patch));
  });
  return taskCompleted && !storePatch;
}
