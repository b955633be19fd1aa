import type { JobStore } from '../store/job-store.js';
import type { JsonValue, ObjectRef } from '../store/references.js';
import type { ReadObject } from './transcript-nodes.js';

/** Objects kept by default: a long job's transcript nodes and messages, well within memory. */
const DEFAULT_MAX_OBJECTS = 20_000;

/**
 * Reads objects through a least-recently-used cache. Stored objects never change (a reference is
 * the hash of the content), so a cached object is never stale; the cache only saves the reads
 * that every model call of a long job would otherwise repeat. Callers must not modify what it
 * returns.
 */
export function cachedReader(store: JobStore, maxObjects = DEFAULT_MAX_OBJECTS): ReadObject {
  const cache = new Map<ObjectRef, JsonValue>();
  return async (ref) => {
    const hit = cache.get(ref);
    if (hit !== undefined) {
      cache.delete(ref);
      cache.set(ref, hit);
      return hit;
    }
    const value = await store.getObject(ref);
    cache.set(ref, value);
    if (cache.size > maxObjects) {
      const oldest = cache.keys().next();
      if (!oldest.done) cache.delete(oldest.value);
    }
    return value;
  };
}
