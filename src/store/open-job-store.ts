import { EncryptingJobStore } from '../encryption/encrypting-job-store.js';
import { keyringFromEnvironment, type EncryptionKeyring } from '../encryption/encryption-keys.js';
import { FileJobStore } from './file/file-job-store.js';
import type { FollowOptions } from './follow-events.js';
import type { JobStore } from './job-store.js';
import { StoreSettingsError } from './store-errors.js';

export interface JobStoreSettings {
  /**
   * `DAR_STORE_URL`: a `postgres://` or `postgresql://` URL selects the PostgreSQL backend;
   * unset (or empty) selects the embedded backend in {@link folder}.
   */
  url?: string | undefined;
  /** The embedded store's folder (the lead passes `<state folder>/store`). */
  folder: string;
  /** How `followEvents` polls. */
  follow?: FollowOptions;
  /**
   * Encrypt everything stored (objects, events, records) with these keys (see
   * `EncryptingJobStore`); undefined stores plain JSON.
   */
  encryption?: EncryptionKeyring | undefined;
}

/**
 * The store settings from the environment: `DAR_STORE_URL`, the embedded folder, and the
 * encryption keys (`DAR_ENCRYPTION_KEY` / `DAR_ENCRYPTION_KEY_FILE`, as for Temporal payloads).
 * Throws `EncryptionSettingsError` for a malformed key.
 */
export function jobStoreSettingsFromEnvironment(
  folder: string,
  environment: NodeJS.ProcessEnv = process.env,
): JobStoreSettings {
  return {
    url: environment.DAR_STORE_URL,
    folder,
    encryption: keyringFromEnvironment(environment),
  };
}

/**
 * Opens the job store the settings select. A malformed URL is a `StoreSettingsError` naming
 * the problem (with any password hidden). The PostgreSQL store connects on first use, so
 * opening it does not fail when the database is down.
 */
export async function openJobStore(settings: JobStoreSettings): Promise<JobStore> {
  const store = await openPlainJobStore(settings);
  return settings.encryption ? new EncryptingJobStore(store, settings.encryption) : store;
}

async function openPlainJobStore(settings: JobStoreSettings): Promise<JobStore> {
  const url = settings.url?.trim();
  const follow = settings.follow ?? {};
  if (!url) {
    return FileJobStore.open({
      folder: settings.folder,
      follow,
    });
  }
  checkPostgresUrl(url);
  // Loaded only when selected: a command on the embedded store starts without the driver.
  const { PostgresJobStore } = await import('./postgres/postgres-job-store.js');
  return new PostgresJobStore({
    connectionString: url,
    follow,
  });
}

function checkPostgresUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new StoreSettingsError(
      `DAR_STORE_URL is not a URL: "${hidePassword(url)}" (expected postgres://user:password@host:5432/database)`,
    );
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new StoreSettingsError(
      `DAR_STORE_URL must start with postgres:// or postgresql://, not ${parsed.protocol}// (unset it for the embedded store)`,
    );
  }
  if (parsed.hostname === '' && !parsed.searchParams.has('host')) {
    throw new StoreSettingsError(
      `DAR_STORE_URL names no host: "${hidePassword(url)}" (expected postgres://user:password@host:5432/database)`,
    );
  }
}

/** The URL with the password part replaced, for error messages. */
function hidePassword(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^@/]*@/i, '$1***@');
}
