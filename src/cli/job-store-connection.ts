import { join, resolve } from 'node:path';
import { EncryptionSettingsError } from '../encryption/encryption-keys.js';
import { DEFAULT_STATE_DIR, type ConnectionSettings } from '../server/connection-settings.js';
import type { JobStore } from '../store/job-store.js';
import { jobStoreSettingsFromEnvironment, openJobStore } from '../store/open-job-store.js';
import { StoreSettingsError } from '../store/store-errors.js';
import { UsageError } from './usage-error.js';

/**
 * The folder of the embedded job store: `store/` in the state folder, beside the embedded
 * server's database. With a cluster, the state folder is `--state-dir`, `DAR_STATE_DIR` or
 * `./.dar` all the same; workers on several machines need `DAR_STORE_URL` (PostgreSQL) instead.
 */
export function embeddedStoreFolder(settings: ConnectionSettings, stateDir?: string): string {
  if (settings.kind === 'embedded') return join(settings.stateDir, 'store');
  const folder = stateDir ?? process.env.DAR_STATE_DIR ?? DEFAULT_STATE_DIR;
  return join(resolve(folder), 'store');
}

/** Opens the job store every command and worker uses; a bad `DAR_STORE_URL` is a usage error. */
export async function openCliJobStore(
  settings: ConnectionSettings,
  stateDir?: string,
): Promise<JobStore> {
  try {
    return await openJobStore(
      jobStoreSettingsFromEnvironment(embeddedStoreFolder(settings, stateDir)),
    );
  } catch (error) {
    if (error instanceof StoreSettingsError || error instanceof EncryptionSettingsError)
      throw new UsageError(error.message);
    throw error;
  }
}
