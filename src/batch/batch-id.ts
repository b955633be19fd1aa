import { createHash } from 'node:crypto';
import { UsageError } from '../job-input/usage-error.js';

/** Batch ids go into workflow ids and list filters: no spaces, no quotes. */
const BATCH_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;

/**
 * The default batch id: a hash of the file's absolute path and its contents. The same command on
 * the same file gives the same id (and so the same workflow ids); an edited file is a new batch.
 */
export function batchIdOf(absolutePath: string, contents: string): string {
  return createHash('sha256')
    .update(absolutePath)
    .update('\0')
    .update(contents)
    .digest('hex')
    .slice(0, 16);
}

/** Checks a batch id given by the user (`--batch-id`, `--batch`). */
export function checkBatchId(id: string, flag: string): string {
  if (!BATCH_ID.test(id)) {
    throw new UsageError(
      `${flag} must be letters, digits and . _ : - (at most 64, starting with a letter or digit), not "${id}"`,
    );
  }
  return id;
}

/**
 * The workflow id of an attempt at a batch's task: running the batch again finds the same
 * workflow. The first attempt is `batch-<batch>-<task>`; a later one (`--retry-failed`) adds
 * `+attempt-<n>` (`+` is in neither a batch id nor a task id, so no two ids meet).
 */
export function taskWorkflowId(batchId: string, taskId: string, attempt = 1): string {
  const first = `batch-${batchId}-${taskId}`;
  return attempt === 1 ? first : `${first}+attempt-${attempt}`;
}
