import type { JobStore } from './job-store.js';
import { objectRef } from './object-ref.js';
import { JobStoreError } from './store-errors.js';
import type { PreparedObject } from './references.js';

/** `prepareObject` of a store that keeps values as they are: the value and its hash. */
export function preparePlainObject(value: unknown): PreparedObject {
  return { ref: objectRef(value), stored: value };
}

/**
 * `putPreparedObjects` of a store that keeps values as they are: its `putObjects`, and a check
 * that each object landed under the reference it was given (a value changed after it was
 * prepared would otherwise sit where a reader does not look for it).
 */
export async function putPreparedPlainObjects(
  store: Pick<JobStore, 'putObjects'>,
  objects: readonly PreparedObject[],
): Promise<void> {
  const refs = await store.putObjects(objects.map((object) => object.stored));
  objects.forEach((object, index) => {
    if (refs[index] !== object.ref) {
      throw new JobStoreError(
        `A prepared object was stored as ${String(refs[index])}, not as ${object.ref} (changed since it was prepared, or prepared by another store)`,
      );
    }
  });
}
