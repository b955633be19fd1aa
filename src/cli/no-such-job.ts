import { quoteBounded } from '../core/limits.js';
import type { ConnectionSettings } from '../server/index.js';

/**
 * Characters of the id quoted: Temporal's default longest workflow id, so that the id of any job
 * that can exist is quoted whole, and a mistyped argument of any size is not.
 */
const QUOTED_JOB_ID_LENGTH = 1000;

/**
 * "No job with id X", with where it was looked for: each folder's embedded server has its own
 * jobs, and a job started from another folder is not found here.
 */
export function noSuchJobMessage(
  settings: ConnectionSettings,
  namespace: string,
  workflowId: string,
): string {
  const where =
    settings.kind === 'embedded'
      ? `in the state folder ${settings.stateDir} (another folder's jobs: --state-dir DIR or DAR_STATE_DIR)`
      : `in namespace ${namespace} at ${settings.address}`;
  return `No job with id ${quoteBounded(workflowId, QUOTED_JOB_ID_LENGTH)} ${where}`;
}
