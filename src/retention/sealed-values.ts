import { isSealedJson } from '../encryption/sealed-json.js';
import { JobStoreError } from '../store/store-errors.js';

/**
 * Throws for a value that is still encrypted as read: the pruner was not given the keys, and
 * could not see the references inside, so it would take objects in use for unused ones.
 */
export function refuseSealed(value: unknown): void {
  if (!isSealedJson(value)) return;
  throw new JobStoreError(
    `The job store holds values encrypted with key "${value.key}", and this pruner reads them ` +
      'without keys: give it the keys the workers use (DAR_ENCRYPTION_KEY or ' +
      'DAR_ENCRYPTION_KEY_FILE). No object was removed.',
  );
}
