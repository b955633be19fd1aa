import type { SearchAttributePair } from '@temporalio/common';
import { startSearchAttributes } from '../workflows/search-attributes.js';
import { refusalSays } from './server-refusal.js';

/**
 * What servers say of a search attribute the namespace does not know: through the namespace's
 * attribute mapping (recent servers, SQL visibility, Temporal Cloud), or their validator.
 */
const UNKNOWN_ATTRIBUTE =
  /no mapping defined for search attribute|search attribute \S+ is not defined/i;

/** Whether the server refused a start for a search attribute its namespace does not know. */
export function isUnknownSearchAttributeRefusal(error: unknown): boolean {
  return refusalSays(error, UNKNOWN_ATTRIBUTE);
}

/**
 * Starts a job with the search attributes it would otherwise publish first
 * (`startSearchAttributes`), which saves the job an upsert. A namespace that does not know them
 * (a dev server started by an older `dar`, a cluster whose operators have not registered them
 * yet) refuses such a start; the job is then started without them and publishes them itself,
 * as jobs always did, and a worker's start-up check names the commands that register them.
 */
export async function startWithJobAttributes<T>(
  start: (attributes: SearchAttributePair[]) => Promise<T>,
  batchId?: string,
): Promise<T> {
  try {
    return await start(startSearchAttributes(batchId));
  } catch (error) {
    if (!isUnknownSearchAttributeRefusal(error)) throw error;
    return start([]);
  }
}
